"""The billing export read from its BigQuery table (sources.gcp_billing.bigquery), through the
real google-cloud-bigquery client against bqemulator on 127.0.0.1 (tests/bigquery_emulator.py
starts it from `.tools/bqemulator`, which `make setup` builds; one per test process, shared
with the other BigQuery modules, each test on a table of its own). The emulator reads
`_PARTITIONTIME` as the day of a row's export_time: Google's export partitions by ingestion day.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from google.cloud import bigquery

from flopledger.cli.main import main
from flopledger.collectors.gcp_billing import bigquery as bigquery_source
from flopledger.collectors.money import BadNumber, to_decimal
from tests.bigquery_emulator import BigQueryEmulator
from tests.conftest import billing_row, credit, run_record, write_config, write_ndjson

# Columns that say where a row was read from (a file and its line, or the table; when): the
# same export row read from a file and from the table differs in these and only these.
WHERE_FROM = ("source", "source_line", "ingested_at")
PARTITION_FILTER = "_PARTITIONTIME >= TIMESTAMP(@since_day)"
UTC = UTC
NEVER = datetime(1970, 1, 1, tzinfo=UTC)  # the client sends naive times as UTC
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)


@pytest.fixture
def emulator(bigquery_emulator: BigQueryEmulator) -> BigQueryEmulator:
    """The test process's bqemulator (tests/conftest.py)."""
    return bigquery_emulator


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every query the real client sends: its SQL, parameters, byte cap and whether a dry run."""
    calls: list[dict[str, Any]] = []
    real_query = bigquery.Client.query

    def recording_query(self: bigquery.Client, query: str, job_config: Any = None, **kw: Any):
        calls.append(
            {
                "sql": query,
                "params": {p.name: p.value for p in job_config.query_parameters},
                "max_bytes_billed": job_config.maximum_bytes_billed,
                "dry_run": bool(job_config.dry_run),
                "labels": job_config.labels,
            }
        )
        return real_query(self, query, job_config=job_config, **kw)

    monkeypatch.setattr(bigquery.Client, "query", recording_query)
    return calls


def _rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _line_items_checksum(db: Path) -> tuple[int, str]:
    """Row count and a checksum of every billing_line_items row (ordered by row id), all
    columns but where each row was read from."""
    columns = [
        r[0]
        for r in _rows(
            db,
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'billing_line_items' "
            "ORDER BY column_index",
        )
        if r[0] not in WHERE_FROM
    ]
    rows = _rows(db, f"SELECT {', '.join(columns)} FROM billing_line_items ORDER BY row_id")
    return len(rows), hashlib.sha256("\n".join(map(repr, rows)).encode()).hexdigest()


def _books(db: Path) -> list[tuple]:
    return _rows(db, "SELECT * FROM books ORDER BY ALL")


def _files_config(bigquery_config: Path) -> Path:
    """The same folder read from its extract files, into a warehouse of its own."""
    text = bigquery_config.read_text()
    start = text.index("    bigquery:")
    end = text.index("\n  jobs:")
    text = text[:start] + '    paths: ["billing/**/*.ndjson", "billing/**/*.parquet"]' + text[end:]
    text = text.replace("path: warehouse.duckdb", "path: files.duckdb")
    text = text.replace("dagster_home: dagster_home", "dagster_home: dagster_files")
    path = bigquery_config.with_name("files.yaml")
    path.write_text(text)
    return path


def test_bigquery_source_gives_the_rows_and_books_the_files_give(
    emulator: BigQueryEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fleet"
    args = ["simulate", "--out", str(out), "--days", "1", "--gpus", "8", "--tpu-chips", "0"]
    assert main([*args, "--no-telemetry", "--bigquery", emulator.endpoint]) == 0
    printed = capsys.readouterr().out
    distinct = int(printed.split(" distinct rows")[0].rsplit("over ", 1)[1].replace(",", ""))
    config = out / "flopledger.yaml"
    assert "bigquery:" in config.read_text() and "billing/**" not in config.read_text()
    files = _files_config(config)

    assert main(["run", "--config", str(config)]) == 0
    assert main(["run", "--config", str(files)]) == 0

    from_table, from_files = (
        _line_items_checksum(out / "warehouse.duckdb"),
        _line_items_checksum(out / "files.duckdb"),
    )
    # Every distinct row of the simulated export (the simulator's own count), once, either way.
    assert from_table[0] == distinct
    assert from_table == from_files
    assert _books(out / "warehouse.duckdb") == _books(out / "files.duckdb")
    sources = _rows(out / "warehouse.duckdb", "SELECT DISTINCT source FROM billing_line_items")
    assert sources == [(f"bigquery:{emulator_table(config)}",)]


def emulator_table(config: Path) -> str:
    line = next(x for x in config.read_text().splitlines() if x.strip().startswith("table:"))
    return line.split(":", 1)[1].strip()


TABLE = "billing-admin.export_late.gcp_billing_export_resource_v1_01ABCD_234567_89EF01"


def _table_config(root: Path, endpoint: str, table: str = TABLE) -> Path:
    (root / "jobs").mkdir(exist_ok=True)
    write_ndjson(root / "jobs" / "runs.jsonl", [run_record("run-1")])
    return write_config(
        root,
        f"""
warehouse: {{kind: duckdb, path: w.duckdb}}
history_start: 2026-10-01
sources:
  gcp_billing:
    bigquery: {{table: {table}, location: US, endpoint: "{endpoint}", max_bytes_billed: 5000000}}
  jobs: {{paths: ["jobs/*.jsonl"]}}
""",
    )


def _export_file(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Rows as the export table holds them (the helper's invoice has no publisher here)."""
    for row in rows:
        row["invoice"] = {"month": row["invoice"]["month"]}
    return write_ndjson(path, rows)


def _totals(db: Path) -> tuple[int, Decimal, Decimal]:
    return _rows(
        db,
        "SELECT count(*), sum(cost_usd), sum(cost_usd + credits_total_usd) FROM billing_line_items",
    )[0]


def test_bigquery_source_takes_late_rows_once_and_bounds_every_query(
    emulator: BigQueryEmulator, tmp_path: Path, sent: list[dict[str, Any]]
) -> None:
    config = _table_config(tmp_path, emulator.endpoint)
    db = tmp_path / "w.duckdb"
    a = billing_row(hour="2026-10-01 00", cost="100.25", credits=[credit("-20.05")])
    b = billing_row(hour="2026-10-01 01", cost="50.10")
    bad = billing_row(hour="2026-10-01 05", end_hour="2026-10-01 03", cost="7")
    emulator.load([_export_file(tmp_path / "first.ndjson", [a, b, bad])], TABLE)

    assert main(["run", "--config", str(config)]) == 0
    # a + b: billed 100.25 + 50.10 = 150.35; effective 150.35 - 20.05 = 130.30.
    assert _totals(db) == (2, Decimal("150.35"), Decimal("130.30"))
    reasons = _rows(db, "SELECT source, file, reason FROM quarantine")
    assert reasons == [("gcp_billing", f"bigquery:{TABLE}", reasons[0][2])]
    assert reasons[0][2].startswith("usage ends before it starts")

    # A credit for Oct 1 exported on Oct 9: a row of its own, in a later partition.
    late = billing_row(
        hour="2026-10-01 00",
        cost=0,
        credits=[credit("-5.005", "PROMOTION")],
        export_time="2026-10-09 06:00:00 UTC",
    )
    emulator.load([_export_file(tmp_path / "late.ndjson", [late])], TABLE)
    first_run = len(sent)
    assert main(["run", "--config", str(config)]) == 0
    # + late: billed 150.35 + 0; effective 130.30 - 5.005 = 125.295.
    assert _totals(db) == (3, Decimal("150.35"), Decimal("125.295"))
    books = _books(db)

    second_run = len(sent)
    assert main(["run", "--config", str(config)]) == 0  # nothing new: nothing changes
    assert _totals(db) == (3, Decimal("150.35"), Decimal("125.295"))
    assert _books(db) == books

    # Every query carried the partition filter and the byte cap. Bounds, worked by hand
    # (trailing_days 3): run 1 took nothing yet, so it starts at history_start 2026-10-01 less
    # 3 days, every export_time; run 2 from a and b's export time (Oct 1 04:00) less 3 days:
    # Sep 28 04:00, its day's partition; run 3 from the late row's (Oct 9 06:00) less 3 days:
    # Oct 6 06:00. A plain run has no upper bound (9999-12-31).
    for call in sent:
        assert PARTITION_FILTER in call["sql"] and "export_time >= @export_from" in call["sql"]
        assert call["max_bytes_billed"] == 5_000_000 and not call["dry_run"]
        assert call["labels"] == {"app": "flopledger"}
        assert call["params"]["export_until"] == FOREVER
    bounds = [(c["params"]["since_day"], c["params"]["export_from"]) for c in sent]
    sep28 = datetime(2026, 9, 28, 4, 0, tzinfo=UTC)
    oct6 = datetime(2026, 10, 6, 6, 0, tzinfo=UTC)
    assert set(bounds[:first_run]) == {(date(2026, 9, 28), NEVER)}
    assert set(bounds[first_run:second_run]) == {(date(2026, 9, 28), sep28)}
    assert set(bounds[second_run:]) == {(date(2026, 10, 6), oct6)}


def test_bigquery_source_dry_run_prints_each_query_and_reads_nothing(
    emulator: BigQueryEmulator,
    tmp_path: Path,
    sent: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = TABLE.replace("export_late", "export_dry_run")
    config = _table_config(tmp_path, emulator.endpoint, table)
    emulator.create_export_table(table)
    assert main(["run", "--dry-run", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    # The emulator has no cost model: its dry runs say 0 bytes (BigQuery says the real figure).
    assert "billing_export_days: would scan 0 bytes" in out
    assert "billing_export_rows: would scan 0 bytes" in out
    assert "partitions from 2026-09-28" in out
    assert [c["dry_run"] for c in sent] == [True, True]
    assert all(PARTITION_FILTER in c["sql"] for c in sent)
    assert not (tmp_path / "w.duckdb").exists()  # a dry run creates no warehouse


def _report_row(printed: str, table: str = "billing_line_items") -> list[str]:
    """The run report's row for one source table: read, loaded, duplicate, quarantined, ..."""
    return next(x.split()[1:] for x in printed.splitlines() if x.startswith(table + " "))


def test_bigquery_source_backfill_rereads_its_days_from_their_first_partition(
    emulator: BigQueryEmulator, tmp_path: Path, sent: list[dict[str, Any]]
) -> None:
    table = TABLE.replace("export_late", "export_backfill")
    config = _table_config(tmp_path, emulator.endpoint, table)
    db = tmp_path / "w.duckdb"
    oct1 = billing_row(hour="2026-10-01 00", cost="10", export_time="2026-10-01 04:00:00 UTC")
    oct2 = billing_row(hour="2026-10-02 00", cost="20", export_time="2026-10-02 04:00:00 UTC")
    emulator.load([_export_file(tmp_path / "days.ndjson", [oct1, oct2])], table)
    assert main(["run", "--config", str(config)]) == 0
    assert _totals(db) == (2, Decimal("30"), Decimal("30"))  # 10 + 20

    # Appended later: a second Oct 2 row (exported Oct 5) and an Oct 4 row (exported Oct 4).
    late2 = billing_row(hour="2026-10-02 01", cost="7", export_time="2026-10-05 01:00:00 UTC")
    oct4 = billing_row(hour="2026-10-04 00", cost="40", export_time="2026-10-04 04:00:00 UTC")
    emulator.load([_export_file(tmp_path / "later.ndjson", [late2, oct4])], table)
    sent.clear()
    assert main(["run", "--config", str(config), "--from", "2026-10-02", "--to", "2026-10-02"]) == 0
    # The backfill rereads Oct 2's partition on (less 3 days: Sep 29), every export_time up to
    # the watermark (Oct 2 04:00), no later: late2 and oct4 are past it, so nothing is new,
    # and the watermark stays where plain runs left it.
    assert _totals(db) == (2, Decimal("30"), Decimal("30"))
    rows_queries = [c for c in sent if c["sql"].startswith("SELECT *")]
    assert [c["params"]["since_day"] for c in rows_queries] == [date(2026, 9, 29)]
    assert rows_queries[0]["params"]["export_from"] == NEVER
    assert rows_queries[0]["params"]["export_until"] == datetime(2026, 10, 2, 4, tzinfo=UTC)

    # The next plain run takes both, whatever their day: 30 + 7 + 40 = 77.
    assert main(["run", "--config", str(config)]) == 0
    assert _totals(db) == (4, Decimal("77"), Decimal("77"))


def test_bigquery_source_review_backfill_then_plain_run(
    emulator: BigQueryEmulator, tmp_path: Path, sent: list[dict[str, Any]]
) -> None:
    """The reviewer's repro: a backfill first must not move the watermark past rows of other
    days it did not take."""
    table = TABLE.replace("export_late", "export_review")
    config = _table_config(tmp_path, emulator.endpoint, table)
    oct1 = billing_row(hour="2026-10-01 00", cost="10", export_time="2026-10-01 04:00:00 UTC")
    oct2 = billing_row(hour="2026-10-02 00", cost="20", export_time="2026-10-02 04:00:00 UTC")
    emulator.load([_export_file(tmp_path / "days.ndjson", [oct1, oct2])], table)
    assert main(["run", "--config", str(config), "--from", "2026-10-02", "--to", "2026-10-02"]) == 0
    assert main(["run", "--config", str(config)]) == 0
    assert _totals(tmp_path / "w.duckdb") == (2, Decimal("30"), Decimal("30"))


def test_bigquery_source_trailing_window_takes_a_late_row_with_an_older_export_time(
    emulator: BigQueryEmulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = TABLE.replace("export_late", "export_trailing")
    config = _table_config(tmp_path, emulator.endpoint, table)
    db = tmp_path / "w.duckdb"
    first = billing_row(hour="2026-10-02 00", cost="20", export_time="2026-10-02 04:00:00 UTC")
    bad = billing_row(hour="2026-10-01 05", end_hour="2026-10-01 03", cost="7")  # Oct 1 04:00
    emulator.load([_export_file(tmp_path / "first.ndjson", [first, bad])], table)
    assert main(["run", "--config", str(config)]) == 0
    # Appended after that run, with an export_time 18 hours before the watermark (Oct 2
    # 04:00), inside the 3-day window: the next read (from Sep 29 04:00) takes it, once.
    late = billing_row(hour="2026-10-01 05", cost="3.5", export_time="2026-10-01 10:00:00 UTC")
    emulator.load([_export_file(tmp_path / "late.ndjson", [late])], table)
    capsys.readouterr()
    assert main(["run", "--config", str(config)]) == 0
    assert _totals(db) == (2, Decimal("23.5"), Decimal("23.5"))  # 20 + 3.5
    # read 3 (every row of the window), loaded 1 (late), duplicate 0, quarantined 0 (bad is
    # in quarantine already), skipped 2 (first and bad: already taken).
    assert _report_row(capsys.readouterr().out)[:5] == ["3", "1", "0", "0", "2"]
    assert main(["run", "--config", str(config)]) == 0
    assert _totals(db) == (2, Decimal("23.5"), Decimal("23.5"))
    # Nothing new: the three rows read again, none loaded, none a duplicate, none newly
    # quarantined, all three already taken.
    printed = capsys.readouterr().out
    assert _report_row(printed)[:5] == ["3", "0", "0", "0", "3"]
    assert "3 skipped: already taken" in printed
    assert _rows(db, "SELECT count(*) FROM quarantine") == [(1,)]


def test_bigquery_source_reruns_are_byte_identical(
    emulator: BigQueryEmulator, tmp_path: Path
) -> None:
    """source_line is NULL for table rows (a row's place in a result has no order), so the
    same export read into two warehouses gives the same rows, every column but ingested_at."""
    table = TABLE.replace("export_late", "export_rerun")
    rows = [
        billing_row(hour=f"2026-10-01 {h:02d}", cost=str(h + 1), export_time=t)
        for h, t in [(0, "2026-10-01 04:00:00 UTC"), (1, "2026-10-01 04:00:00 UTC")]
    ]
    emulator.load([_export_file(tmp_path / "rows.ndjson", rows)], table)
    dumps = []
    for name in ("a", "b"):
        root = tmp_path / name
        root.mkdir()
        assert main(["run", "--config", str(_table_config(root, emulator.endpoint, table))]) == 0
        dumps.append(
            _rows(
                root / "w.duckdb",
                "SELECT * EXCLUDE (ingested_at) FROM billing_line_items ORDER BY row_id",
            )
        )
    assert dumps[0] == dumps[1] and len(dumps[0]) == 2
    lines = _rows(
        tmp_path / "a" / "w.duckdb", "SELECT DISTINCT source_line FROM billing_line_items"
    )
    assert lines == [(None,)]


@pytest.mark.parametrize(
    ("value", "exponent"), [("1e1000000", 1_000_000), ("-2.5E-1001", -1001), ("1e1001", 1001)]
)
def test_bigquery_source_huge_exponents_are_bad_numbers(value: str, exponent: int) -> None:
    """Past 10^±1000 a number is refused before any arithmetic: 1e1000000 overflows abs(),
    and a rate of 1e-1000000 divides by zero (decimal.Overflow / DivisionByZero, no BadNumber)."""
    with pytest.raises(BadNumber, match="out of range"):
        to_decimal(value)
    assert Decimal(value).adjusted() == exponent  # hand-checked: past the bound of 1000
    assert to_decimal("1e1000") == Decimal("1e1000") and to_decimal("0e-5000") == 0


def test_bigquery_source_quarantines_huge_exponents_and_any_unexpected_row_error(
    emulator: BigQueryEmulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = TABLE.replace("export_late", "export_hostile")
    config = _table_config(tmp_path, emulator.endpoint, table)
    db = tmp_path / "w.duckdb"
    good = billing_row(hour="2026-10-01 00", cost="10")
    # A FLOAT column holds no 1e1000000, but its smallest normal rate, 2.3e-308, is 0 at the
    # rate's 18 places: 5 / 0 would divide by zero. Quarantined, the rate named.
    big = billing_row(hour="2026-10-01 01", cost=5, rate=2.3e-308)
    odd = billing_row(hour="2026-10-01 02", cost="11")
    emulator.load([_export_file(tmp_path / "rows.ndjson", [good, big, odd])], table)

    real = bigquery_source.normalise

    def failing(record: dict, *args: Any):  # a failure no check foresaw, on one row
        if record.get("cost") == 11:
            raise ArithmeticError("decimal.Overflow")
        return real(record, *args)

    monkeypatch.setattr(bigquery_source, "normalise", failing)
    assert main(["run", "--config", str(config)]) == 0
    assert _totals(db) == (1, Decimal("10"), Decimal("10"))  # only `good`
    reasons = sorted(r[0] for r in _rows(db, "SELECT reason FROM quarantine"))
    assert len(reasons) == 2
    assert reasons[0] == "currency_conversion_rate is 0 at 18 decimal places: no USD amount"
    assert reasons[1] == "unreadable row (ArithmeticError: decimal.Overflow)"
