"""Shared test helpers: export-shaped billing rows, run records and config files."""

from __future__ import annotations

import glob
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"  # reference files, origins in its README.md
# How long a wait on a subprocess, a server or a page lasts before it is a hang: not a speed
# limit (a loaded machine never comes near it), so no test fails for being slow. pytest-timeout
# (pyproject.toml, 1,200 s) ends any test that hangs elsewhere.
HANG_S = 600


def sku_id(description: str) -> str:
    """A stable SKU id shaped like Google's (`XXXX-XXXX-XXXX`, upper-case hex) for a description."""
    digest = hashlib.sha256(description.encode()).hexdigest()[:12].upper()
    return f"{digest[:4]}-{digest[4:8]}-{digest[8:]}"


def billing_row(
    *,
    hour: str = "2026-10-01 00",
    sku: str = "Nvidia H100 80GB GPU running in Americas",
    resource: str | None = "a3-node-1",
    cost: Any = 10.0,
    credits: list[dict[str, Any]] | None = None,
    labels: dict[str, str] | None = None,
    usage_seconds: Any = 28800,
    export_time: str = "2026-10-01 04:00:00 UTC",
    currency: str = "USD",
    rate: Any = 1.0,
    project: str = "ml-prod",
    end_hour: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One row in the detailed usage cost export's shape (as a BigQuery NDJSON extract writes it)."""
    start = f"{hour}:00:00 UTC"
    if end_hour is None:
        day, hh = hour.rsplit(" ", 1)
        end_hour = f"{day} {int(hh) + 1:02d}" if int(hh) < 23 else hour  # tests stay inside a day
    row = {
        "billing_account_id": "01ABCD-234567-89EF01",
        "service": {"id": "6F81-5844-456A", "description": "Compute Engine"},
        "sku": {"id": sku_id(sku), "description": sku},
        "usage_start_time": start,
        "usage_end_time": f"{end_hour}:00:00 UTC",
        "project": {"id": project, "number": "123456", "name": project, "labels": []},
        "labels": [{"key": k, "value": v} for k, v in (labels or {}).items()],
        "system_labels": [],
        "location": {
            "location": "us-central1",
            "country": "US",
            "region": "us-central1",
            "zone": "us-central1-a",
        },
        "resource": {"name": resource, "global_name": f"//compute/{resource}"}
        if resource
        else None,
        "export_time": export_time,
        "cost": cost,
        "currency": currency,
        "currency_conversion_rate": rate,
        "usage": {
            "amount": usage_seconds,
            "unit": "seconds",
            "amount_in_pricing_units": None,
            "pricing_unit": "hour",
        },
        "credits": credits or [],
        "invoice": {"month": "202610", "publisher_type": "GOOGLE"},
        "cost_type": "regular",
        "cost_at_list": cost,
    }
    row.update(extra)
    return row


def credit(amount: Any, type_: str = "COMMITTED_USAGE_DISCOUNT") -> dict[str, Any]:
    return {"name": type_.title(), "amount": amount, "full_name": None, "id": type_, "type": type_}


def write_ndjson(path: Path, rows: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_record(run_id: str, **fields: Any) -> dict[str, Any]:
    record = {
        "run_id": run_id,
        "job_id": run_id.rsplit("-", 1)[0],
        "attempt": 1,
        "team": "llm",
        "project_id": "ml-prod",
        "workload_class": "pretraining",
        "experiment_id": "exp-1",
        "model_name": "llama-8b",
        "model_params": 8_000_000_000,
        "submitted_at": "2026-10-01T00:00:00Z",
        "started_at": "2026-10-01T00:00:00Z",
        "ended_at": "2026-10-01T01:00:00Z",
        "status": "succeeded",
        "accelerator_type": "H100-80GB",
        "accelerator_count": 8,
        "tokens_in": 1_000_000,
        "tokens_out": 0,
        "labels": {},
        "placements": [{"resource_name": "a3-node-1", "accelerators": 8}],
    }
    record.update(fields)
    return record


def source_files(config: Any, name: str) -> list[Path]:
    """The local files source `name`'s globs match now, sorted (gs:// paths left out: the
    pipeline lists those through ingest/inputs.py, once per run)."""
    source = getattr(config.sources, name)
    found = {
        Path(p)
        for pattern in (source.paths if source else [])
        if not pattern.startswith("gs://")
        for p in glob.glob(pattern, recursive=True)
        if Path(p).is_file()
    }
    return sorted(found)


def write_config(directory: Path, text: str) -> Path:
    path = directory / "flopledger.yaml"
    path.write_text(text)
    return path


class FileBooks:
    """Export-shaped files in `root` through the real pipeline (`run_pipeline`), read back.

    For the tests that are about the whole way from files to marts; tests/models builds the
    marts from raw-table rows instead (tests/models/conftest.py), which is faster."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config_path = root / "flopledger.yaml"

    def build(self, billing: list[Any], runs: list[Any]) -> FileBooks:
        # Imported here: Dagster is slow to import and most tests never need it.
        from flopledger.pipelines.runner import run_pipeline
        from flopledger.settings import load_config

        write_ndjson(self.root / "billing" / "x.ndjson", billing)
        write_ndjson(self.root / "jobs" / "runs.jsonl", runs)
        self.config = load_config(self.config_path)
        report = run_pipeline(self.config, self.config_path)
        assert report.succeeded, report.failures
        assert not report.failed_error_checks, report.failed_error_checks
        self.report = report
        return self

    def rows(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        from flopledger.warehouse import open_warehouse

        return open_warehouse(self.config.warehouse).query(sql, params).to_pylist()

    def one(self, sql: str, params: list[Any] | None = None) -> Any:
        return next(iter(self.rows(sql, params)[0].values()))


def new_project_dir(root: Path) -> Path:
    """`root` with a config that reads billing/*.ndjson|parquet and jobs/*.jsonl into w.duckdb."""
    (root / "billing").mkdir()
    (root / "jobs").mkdir()
    write_config(
        root,
        """
warehouse: {kind: duckdb, path: w.duckdb}
sources:
  gcp_billing: {paths: ["billing/*.ndjson", "billing/*.parquet"]}
  jobs: {paths: ["jobs/*.jsonl", "jobs/*.json"]}
  probes: {paths: ["probes/*.jsonl"]}
""",
    )
    return root


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    """A folder with a config that reads billing/*.ndjson|parquet and jobs/*.jsonl into w.duckdb."""
    return new_project_dir(tmp_path)


@pytest.fixture(scope="session")
def bigquery_emulator(tmp_path_factory: pytest.TempPathFactory):
    """One bqemulator per test process (tests/bigquery_emulator.py), for every BigQuery test
    that can share it: each uses a dataset of its own."""
    from tests.bigquery_emulator import running_bigquery_emulator

    with running_bigquery_emulator(tmp_path_factory.mktemp("bqemulator")) as running:
        yield running


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`bigquery_live` tests are skipped, with the reason, unless a real project and
    credentials are there (tests/bigquery_live.py)."""
    live = [item for item in items if item.get_closest_marker("bigquery_live") is not None]
    if not live:
        return
    import os

    from tests.bigquery_live import skip_reason

    reason = skip_reason(os.environ)
    if reason is not None:
        for item in live:
            item.add_marker(pytest.mark.skip(reason=f"bigquery_live: {reason}"))
