"""Every source read from gs:// (gcp-storage-emulator, the real client), the same books as from disk.

A simulated fleet (8 GPUs, 4 TPU chips, 4 days) is run from its folder, then uploaded to
the emulator in the layout the agent and the archives write (spool files under
`spool/dt=YYYY-MM-DD/`, as collectors/nvml/upload.py names them; everything else under its
folder's name) and run again from `gs://` paths, as a 4-day backfill (`--from/--to`). The
emulator counts the requests it answers: each configured path is listed once for the
whole run (not once per day or per step), each object is downloaded once, and a rerun
downloads nothing. Every warehouse table then holds the same rows, but for the columns that
name where a row was read from (a path on disk, a gs:// URI there) and the load's own clock.
"""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from flopledger.cli.main import main
from flopledger.collectors.nvml.upload import object_name
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import simulate
from tests.conftest import billing_row, run_record, write_ndjson
from tests.gcs_emulator import Emulator, running_emulator

# Four days: enough for a listing per day (or per step) to show, and for the Dagster run of
# days 2 and 3 below to leave a later day unread.
START, END = date(2026, 10, 1), date(2026, 10, 4)
# Uploaded as they lie; the spool in the agent's layout.
INPUTS = ("billing", "jobs", "monitoring", "probes", "managed")
# Columns that say where a row was read from (a path, a gs:// URI), or when this load ran.
WHERE_AND_WHEN = {"source", "source_file", "file", "quarantine_id"} | {
    "ingested_at",
    "loaded_at",
    "raised_at",
    "recorded_at",  # settings_history: when each run recorded the settings
}


@pytest.fixture
def gcs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with running_emulator(monkeypatch) as emulator:
        yield emulator


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fleet")
    simulate(out, gpus=8, tpu_chips=4, days=(END - START).days + 1, start=START)
    return out


def _upload(emulator: Emulator, fleet: Path) -> int:
    count = sum(emulator.upload_tree(fleet / name, "fleet", name) for name in INPUTS)
    bucket = emulator.client.bucket("fleet")
    for path in sorted((fleet / "spool").rglob("*.parquet")):
        bucket.blob(object_name("spool", path)).upload_from_filename(str(path))
        count += 1
    return count


def _remote_config(fleet: Path, folder: Path) -> Path:
    """The fleet's own config with every source path on gs://fleet/, the warehouse in `folder`."""
    folder.mkdir()
    shutil.copy(fleet / "budgets.yaml", folder / "budgets.yaml")
    text = (fleet / "flopledger.yaml").read_text()
    for name in (*INPUTS, "spool"):
        text = text.replace(f'"{name}/', f'"gs://fleet/{name}/')
    text = text.replace("price_book: managed/", "price_book: gs://fleet/managed/")
    # billing x2, jobs, spool, monitoring, probes; managed: gateway, usage, costs, price book.
    assert text.count("gs://fleet/") == 10, text
    (folder / "flopledger.yaml").write_text(text)
    return folder / "flopledger.yaml"


def _run(config_path: Path) -> list[tuple[str, str, bool]]:
    """The run's checks (the simulated budgets are meant to be exceeded: an alert, not a fault)."""
    report = run_pipeline(load_config(config_path), config_path, START, END)
    assert report.succeeded, report.failures
    return sorted((c.asset, c.name, c.passed) for c in report.checks)


def _checksums(db: Path) -> dict[str, str]:
    """Per table: a hash of its rows in order, without the where-and-when columns."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        sums = {}
        tables = con.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() "
            "WHERE schema_name <> 'bookkeeping' ORDER BY 1, 2"
        )
        for schema, name in tables.fetchall():  # the intermediate schema's tables, not bookkeeping
            table = f"{schema}.{name}"
            columns = con.execute(
                "SELECT column_name, data_type FROM duckdb_columns()"
                " WHERE schema_name = ? AND table_name = ? ORDER BY column_index",
                [schema, name],
            ).fetchall()
            # Money is DECIMAL and compared exactly; a DOUBLE summed in parallel (hours, kWh)
            # varies in its last bits from run to run on the same rows: 6 decimals are compared.
            listed = ", ".join(
                f'round("{c}", 6)' if kind in ("DOUBLE", "FLOAT") else f'"{c}"'
                for c, kind in columns
                if c not in WHERE_AND_WHEN
            )
            rows = con.execute(f"SELECT {listed} FROM {table} ORDER BY ALL").fetchall()
            sums[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
        return sums
    finally:
        con.close()


def test_a_backfill_from_gs_lists_once_downloads_once_and_books_as_from_disk(
    fleet: Path, gcs: Emulator, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    shutil.copytree(fleet, local)
    local_checks = _run(local / "flopledger.yaml")

    uploaded = _upload(gcs, fleet)
    remote = _remote_config(fleet, tmp_path / "remote")
    gcs.requests.clear()
    assert _run(remote) == local_checks

    # Ten gs:// paths in the config: ten listings for the whole 4-day run, though the
    # spool asset alone asks once per day (the run lists every source once before it starts).
    assert gcs.listings() == ["fleet"] * 10
    downloads = Counter(gcs.downloads())
    assert set(downloads.values()) == {1}, downloads.most_common(5)  # no object twice
    assert len(downloads) == uploaded  # and every object once: each is some source's input

    local_sums = _checksums(local / "warehouse.duckdb")
    remote_sums = _checksums(remote.parent / "warehouse.duckdb")
    assert remote_sums == local_sums
    con = duckdb.connect(str(remote.parent / "warehouse.duckdb"), read_only=True)
    raw = ("billing_line_items", "gpu_samples", "tpu_samples", "jobs", "probe_results")
    for table in (*raw, "managed_requests", "managed_usage", "managed_costs", "managed_prices"):
        assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, table
    # Rows name the object they came from, not the cache's copy.
    for table, column in [("billing_line_items", "source"), ("jobs", "source")] + [
        (t, "source_file") for t in ("managed_requests", "managed_costs", "managed_prices")
    ]:
        named = {s for (s,) in con.execute(f"SELECT DISTINCT {column} FROM {table}").fetchall()}
        assert named and all(s.startswith("gs://fleet/") for s in named), (table, named)
    con.close()

    # A rerun lists again (objects may have arrived) but downloads nothing it took.
    gcs.requests.clear()
    _run(remote)
    assert gcs.listings() == ["fleet"] * 10
    assert gcs.downloads() == []
    assert _checksums(remote.parent / "warehouse.duckdb") == remote_sums


def test_a_missing_bucket_is_one_line_and_exit_2(
    gcs: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "flopledger.yaml"
    config.write_text(
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        'sources:\n  gcp_billing: {paths: ["gs://no-such-bucket/billing/*.ndjson"]}\n'
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "flopledger: gs://no-such-bucket: bucket does not exist"


def test_a_path_matching_nothing_is_reported_and_the_rest_loads(
    gcs: Emulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gcs.client.create_bucket("inputs")  # there, but nothing in it yet
    write_ndjson(tmp_path / "billing" / "x.ndjson", [billing_row(cost="12.50")])
    write_ndjson(tmp_path / "jobs" / "runs.jsonl", [run_record("run-1")])
    config = tmp_path / "flopledger.yaml"
    config.write_text(
        "warehouse: {kind: duckdb, path: w.duckdb}\n"
        "sources:\n"
        '  gcp_billing: {paths: ["billing/*.ndjson"]}\n'
        '  jobs: {paths: ["jobs/*.jsonl"]}\n'
        '  probes: {paths: ["gs://inputs/probes/*.jsonl"]}\n'
    )
    main(["run", "--config", str(config)])  # (the marts' outcome is not this test's business)
    out = capsys.readouterr().out
    assert "input warnings:\n  sources.probes: gs://inputs/probes/*.jsonl: matches nothing" in out
    con = duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True)
    assert con.execute("SELECT sum(cost) FROM billing_line_items").fetchone()[0] == Decimal("12.5")
    con.close()


def test_a_dagster_run_of_three_days_lists_only_their_days_and_reads_only_their_objects(
    fleet: Path, gcs: Emulator, tmp_path: Path
) -> None:
    """The ingest job as the daemon runs it (no `flopledger run` before it): the first step
    that asks lists, every later step reuses it; spool and Monitoring objects, in day
    folders, are listed and chosen by the day their names say."""
    from flopledger.pipelines.asset_jobs import INGEST_JOB
    from flopledger.pipelines.definitions import build_definitions
    from flopledger.pipelines.instance import flopledger_instance

    _upload(gcs, fleet)
    remote = _remote_config(fleet, tmp_path / "remote")
    defs = build_definitions(str(remote), START, END)
    gcs.requests.clear()
    with flopledger_instance(load_config(remote)) as instance:
        result = defs.resolve_job_def(INGEST_JOB).execute_in_process(
            instance=instance,
            raise_on_error=False,
            tags={
                "dagster/asset_partition_range_start": "2026-10-02",
                "dagster/asset_partition_range_end": "2026-10-03",
            },
        )
    assert result.success
    # Eight paths read whole, listed once each; the spool and Monitoring pages, in day
    # folders, list one level and then only the days each step reads (day 2 reads day 1's
    # folder too, and day 3 day 2's), never the bucket's whole history.
    listed = Counter(
        q.get("prefix", [""])[0] + (" (one level)" if q.get("delimiter") else "")
        for m, p, q in gcs.requests
        if m == "GET" and p.endswith("/o")
    )
    assert {
        k: n for k, n in listed.items() if "dt=" in k or k.startswith(("spool", "monitoring"))
    } == {
        "spool/ (one level)": 2,
        "spool/dt=2026-10-01/": 1,
        "spool/dt=2026-10-02/": 2,
        "spool/dt=2026-10-03/": 1,
        "monitoring/ (one level)": 1,
        "monitoring/2026-10-02/": 1,
        "monitoring/2026-10-03/": 1,
    }
    assert sum(listed.values()) == 8 + 6 + 3  # small requests; before, 2 of the 10 were whole
    downloads = Counter(gcs.downloads())
    assert set(downloads.values()) == {1}
    spool = {n.split("/")[2] for n in downloads if n.startswith("fleet/spool/")}
    pages = {n.split("/")[2] for n in downloads if n.startswith("fleet/monitoring/")}
    # Days 2 and 3; the spool also day 1, whose last file may run past midnight.
    assert spool == {"dt=2026-10-01", "dt=2026-10-02", "dt=2026-10-03"}
    assert pages == {"2026-10-02", "2026-10-03"}
