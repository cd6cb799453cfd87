"""Build the marts from hand-written raw-table rows, without Dagster, and read them back.

A scenario writes the rows the collectors would have loaded (tests/models/rows.py), their SKU
columns filled as a billing run fills those of rows loaded before the columns existed
(ingest/gcp_billing/skus.py: the one copy of the SKU rules), then the marts are built the way
pipelines/marts/assets.py builds them: `flopledger_settings` (and its `settings_history`) and `accelerator_specs` first, then
every mart in dependency order, with one connection held open meanwhile (Books.held). Under a
second a scenario. test_from_files.py goes through the real pipeline from export-shaped files
instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from flopledger import models
from flopledger.ingest.gcp_billing.skus import classify_unclassified
from flopledger.ingest.settings_history import record
from flopledger.warehouse.duckdb import DuckDBWarehouse, connect
from tests.models.rows import split_runs


def check_sql(name: str) -> str:
    """The SQL of a model's check (models/checks/<name>.sql): it returns the rows that break it."""
    return models.CHECKS.file(name).text


SETTINGS = {"run_label_key": "run_id", "reporting_currency": "USD"}  # the config defaults
SETTINGS_RECORDED_AT = datetime(2026, 10, 1)
# Peak dense TFLOP/s as the spec table has it: H100 SXM bf16 989.4 (NVIDIA's datasheet
# gives 1,978.9 with sparsity; dense is half). The MFU scenarios use this row only.
SPECS = [
    {"accelerator_type": "H100-80GB", "dtype": "bf16", "peak_tflops_spec": 989.4,
     "source": "NVIDIA H100 datasheet (H100 SXM, dense = half the sparsity figure)"},
]  # fmt: skip


class Books:
    def __init__(self, root: Path):
        self.root = root
        self.warehouse = DuckDBWarehouse(root / "w.duckdb")

    @contextmanager
    def held(self) -> Iterator[None]:
        """The warehouse file open in this process while the block runs: each of the
        warehouse's own calls (a connection per operation, some 60 a build) then joins the
        database DuckDB already has open instead of starting it, reading its catalog and
        checkpointing it again (1.5 s of a scenario's 2.4 s of CPU). The same SQL runs."""
        self.root.mkdir(parents=True, exist_ok=True)
        with closing(connect(self.warehouse.path)):
            yield

    def _load(self, table: str, rows: list[dict[str, Any]]) -> None:
        schema = self.warehouse.query(f"SELECT * FROM {table} LIMIT 0").schema
        self.warehouse.replace_all(table, pa.Table.from_pylist(rows, schema=schema))

    def build(
        self,
        billing: list[dict[str, Any]],
        runs: list[dict[str, Any]],
        *,
        gpu_samples: list[dict[str, Any]] = (),  # type: ignore[assignment]
        tpu_samples: list[dict[str, Any]] = (),  # type: ignore[assignment]
        probes: list[dict[str, Any]] = (),  # type: ignore[assignment]
        settings: dict[str, str] | None = None,
    ) -> Books:
        with self.held():
            return self._build(billing, runs, gpu_samples, tpu_samples, probes, settings)

    def _build(
        self,
        billing: list[dict[str, Any]],
        runs: list[dict[str, Any]],
        gpu_samples: list[dict[str, Any]],
        tpu_samples: list[dict[str, Any]],
        probes: list[dict[str, Any]],
        settings: dict[str, str] | None,
    ) -> Books:
        self.warehouse.ensure_schema()
        jobs, placements = split_runs(runs)
        gpu = [
            {"sample_id": f"{r['node']}/{r['gpu_uuid']}/{r['minute']}", **r} for r in gpu_samples
        ]
        tpu = [{"sample_id": f"{r['resource_name']}/{r['worker_id']}/{r['accelerator_id']}/"
                             f"{r['minute']}", **r} for r in tpu_samples]  # fmt: skip
        self._load(
            "billing_line_items", [{"row_id": f"row-{i}", **r} for i, r in enumerate(billing)]
        )
        classify_unclassified(self.warehouse)  # the SKU columns, as the billing run fills them
        self._load("jobs", jobs)
        self._load("job_placements", placements)
        self._load("gpu_samples", gpu)
        self._load("tpu_samples", tpu)
        self._load("probe_results", list(probes))
        return self.build_marts(settings)

    def build_marts(self, settings: dict[str, str] | None = None) -> Books:
        """What the marts group of assets does: settings and specs, then every mart in order."""
        chosen = settings or SETTINGS
        with self.held():
            record(self.warehouse, chosen, SETTINGS_RECORDED_AT, 5)  # the first: since the start
            self._load("accelerator_specs", SPECS)
            for mart in models.marts():
                self.warehouse.build_mart(mart.name)
        return self

    def rows(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        return self.warehouse.query(sql, params).to_pylist()

    def one(self, sql: str, params: list[Any] | None = None) -> Any:
        return next(iter(self.rows(sql, params)[0].values()))

    def run_cost(self, run_id: str) -> Decimal:
        return self.one("SELECT effective_cost FROM cost_per_run WHERE run_id = ?", [run_id])

    def idle(self, resource: str, hour: str) -> dict[str, Any]:
        return self.rows(
            "SELECT * FROM idle_capacity WHERE resource_name = ? AND hour = CAST(? AS TIMESTAMP)",
            [resource, hour],
        )[0]


@pytest.fixture
def books(tmp_path: Path) -> Books:
    return Books(tmp_path)
