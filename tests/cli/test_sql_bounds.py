"""`flopledger sql` is bounded: a query that would run forever stops at `--timeout`, one that
needs more memory than `--memory-limit` says so, and a large result streams out whole as CSV or
JSON while a table fetches only the rows it shows. Each limit hit is one line naming its flag.

Against a small real DuckDB warehouse, published as a snapshot (as the pipeline leaves it); the
queries make their own rows (`range`), so no result depends on the fixture's size. On BigQuery
(bqemulator): the same command streams and bounds its rows through the job's reader.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from flopledger.cli.commands import sql as sql_command
from flopledger.cli.main import main
from flopledger.clients import bigquery as bq
from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.bigquery_reader import mark_published
from flopledger.warehouse.bounds import Bounds, QueryTimeout
from flopledger.warehouse.duckdb import DuckDBWarehouse
from tests.bigquery_emulator import PROJECT, BigQueryEmulator
from tests.conftest import write_config

# 1e12 rows: at a billion rows a second a core, a quarter of an hour on every core of a big
# machine; never finished within a test, so only the time limit can end it.
FOREVER = "SELECT count(*) AS n FROM range(1000000) a, range(1000000) b"
# "0,1,...,9999999" held whole by one aggregate, which cannot spill to disk: its length, by
# digits, 10*1 + 90*2 + 900*3 + 9000*4 + 90000*5 + 900000*6 + 9000000*7 = 68,888,890, plus
# 9,999,999 commas = 78,888,889 characters (some 80 MB, past a 10 MB limit).
STRING_AGG = "SELECT length(string_agg(i::VARCHAR, ',')) AS n FROM range(10000000) t(i)"
AGG_LENGTH = 78_888_889
TIMEOUT_LINE = (
    "flopledger sql: stopped at the time limit of 1 s (raise it with --timeout SECONDS)\n"
)
MEMORY_LINE = (
    "flopledger sql: out of memory at the limit of 10MB (raise it with --memory-limit SIZE, "
    "e.g. --memory-limit 8GB)\n"
)


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A warehouse with one table, published as a snapshot; returns the config path."""
    wh = DuckDBWarehouse(tmp_path / "w.duckdb")
    wh.execute(
        "CREATE TABLE jobs AS SELECT 'r1' AS run_id, "
        "CAST('12345678901234567890.123456789' AS DECIMAL(38, 9)) AS effective_cost"
    )
    wh.publish_snapshot()
    return write_config(tmp_path, "warehouse: {kind: duckdb, path: w.duckdb}\n")


def _sql(config: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["sql", "--config", str(config), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_query_that_would_run_forever_stops_at_its_timeout(published, capsys):
    code, out, err = _sql(published, capsys, "--timeout", "1", FOREVER)
    assert (code, out, err) == (1, "", TIMEOUT_LINE)
    # the warehouse answers the next query as before
    code, out, _ = _sql(published, capsys, "--format", "csv", "SELECT run_id FROM jobs")
    assert (code, out) == (0, "run_id\nr1\n")


def test_a_result_still_streaming_stops_at_its_timeout(published):
    """Stopped while its rows are being read (not while the query starts): a result of 1e12
    rows, its batches read and dropped until the time limit ends it; rows came before."""
    warehouse = DuckDBWarehouse(published.parent / "w.duckdb")
    bounds = Bounds(timeout_s=0.5, memory_limit="1GB")
    read = 0
    with (
        pytest.raises(QueryTimeout, match=r"^stopped at its time limit of 0.5 s$"),
        warehouse.read_bounded("SELECT i FROM range(1000000000000) t(i)", bounds) as rows,
    ):
        for batch in rows.batches:
            read += batch.num_rows
    assert read > 0


def test_a_query_over_its_memory_limit_names_the_flag(published, capsys):
    code, out, err = _sql(published, capsys, "--memory-limit", "10MB", STRING_AGG)
    assert (code, out, err) == (1, "", MEMORY_LINE)
    # the same query under a limit it fits in
    code, out, _ = _sql(published, capsys, "--memory-limit", "1GB", "--format", "csv", STRING_AGG)
    assert (code, out) == (0, f"n\n{AGG_LENGTH}\n")


def test_the_memory_limit_is_the_query_engines(published, capsys, monkeypatch):
    setting = "SELECT current_setting('memory_limit') AS m"
    code, out, _ = _sql(published, capsys, "--memory-limit", "512MiB", "--format", "csv", setting)
    assert (code, out) == (0, "m\n512.0 MiB\n")
    # unset: half the machine's memory, at most 4 GiB. A 2 GiB machine (4 KiB pages): 1 GiB.
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 2 * 2**30 // 4096}
    monkeypatch.setattr(sql_command.os, "sysconf", pages.__getitem__)
    assert sql_command.default_memory_limit() == "1024MiB"
    code, out, _ = _sql(published, capsys, "--format", "csv", setting)
    assert (code, out) == (0, "m\n1.0 GiB\n")
    pages["SC_PHYS_PAGES"] = 64 * 2**30 // 4096  # 64 GiB: the cap
    assert sql_command.default_memory_limit() == "4096MiB"


def test_a_large_result_streams_out_whole_as_csv(published, capsys):
    # 200,000 rows: three batches of 65,536 and a part; cost = i / 1000 to 9 places, exactly
    query = "SELECT i, CAST(i * 0.001 AS DECIMAL(38, 9)) AS cost FROM range(200000) t(i)"
    code, out, err = _sql(published, capsys, "--format", "csv", query)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 200_001  # the header and every row
    assert lines[0] == "i,cost"
    assert lines[1:] == [f"{i},{i // 1000}.{i % 1000:03d}000000" for i in range(200_000)]
    assert lines[-1] == "199999,199.999000000"


def test_a_large_result_streams_out_whole_as_json(published, capsys):
    query = "SELECT i, CAST(i * 0.001 AS DECIMAL(38, 9)) AS cost FROM range(200000) t(i)"
    code, out, _ = _sql(published, capsys, "--format", "json", query)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 200_000
    assert lines[1234] == '{"i":1234,"cost":"1.234000000"}'
    assert lines[-1] == '{"i":199999,"cost":"199.999000000"}'


def test_small_results_print_as_before(published, capsys):
    """Money to its last place (never through a float); an empty result: CSV's header alone,
    no JSON line."""
    code, out, _ = _sql(published, capsys, "--format", "csv", "SELECT * FROM jobs")
    assert (code, out) == (0, "run_id,effective_cost\nr1,12345678901234567890.123456789\n")
    code, out, _ = _sql(published, capsys, "--format", "json", "SELECT * FROM jobs")
    assert out == '{"run_id":"r1","effective_cost":"12345678901234567890.123456789"}\n'
    empty = "SELECT run_id FROM jobs WHERE false"
    assert _sql(published, capsys, "--format", "csv", empty)[:2] == (0, "run_id\n")
    assert _sql(published, capsys, "--format", "json", empty)[:2] == (0, "")


def test_a_table_fetches_only_the_rows_it_shows(published, capsys):
    # 1e12 rows: the table comes back at once only if the rest are never fetched
    code, out, err = _sql(
        published, capsys, "--max-rows", "5", "SELECT i FROM range(1000000000000) t(i)"
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "shape: (5, 1)"
    cells = [line.split()[1] for line in lines if line.startswith("│ ")]
    assert cells == ["i", "---", "i64", "0", "1", "2", "3", "4"]  # name, type, rows 0 to 4
    assert lines[-1] == "5 rows shown; more not fetched (raise --max-rows)"
    # exactly as many as shown: no note
    code, out, _ = _sql(published, capsys, "--max-rows", "5", "SELECT i FROM range(5) t(i)")
    assert code == 0 and out.splitlines()[0] == "shape: (5, 1)"
    assert "not fetched" not in out


@pytest.mark.parametrize(
    "flag,value,words",
    [
        ("--timeout", "0", "not a number of seconds above 0: 0"),
        ("--timeout", "soon", "not a number of seconds above 0: soon"),
        ("--timeout", "nan", "not a number of seconds above 0: nan"),
        ("--memory-limit", "4 gigs", "not a size such as 4GB or 512MiB: 4 gigs"),
        ("--memory-limit", "0GB", "not a size such as 4GB or 512MiB: 0GB"),
        ("--max-rows", "-1", "not a row count: -1"),
        ("--max-rows", "ten", "not a row count: ten"),
    ],
)
def test_a_bad_bound_is_refused_before_the_query(published, capsys, flag, value, words):
    with pytest.raises(SystemExit) as stopped:
        main(["sql", "--config", str(published), flag, value, "SELECT 1"])
    assert stopped.value.code == 2  # argparse's, as for every bad option
    assert capsys.readouterr().err.strip().endswith(f"argument {flag}: {words}")


def test_refusals_are_unchanged(published, tmp_path, capsys):
    code, out, err = _sql(published, capsys, "DROP TABLE jobs")
    assert (code, out) == (1, "")
    assert err.startswith("flopledger sql: ") and "read-only" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = _sql(published, capsys, "SELECT * FROM no_such_table")
    assert code == 1 and err.startswith("flopledger sql: Catalog Error: Table with name")


def test_bigquery_streams_and_bounds_its_rows(
    bigquery_emulator: BigQueryEmulator, tmp_path: Path, capsys
):
    warehouse = BigQueryWarehouse(PROJECT, "sql_bounds", endpoint=bigquery_emulator.endpoint)
    bq.ensure_dataset(warehouse.client, warehouse.dataset_id, None)
    bq.run_query(
        warehouse.client,
        f"CREATE TABLE `{warehouse.table_id('numbers')}` AS "
        "SELECT x FROM UNNEST(GENERATE_ARRAY(1, 3000)) AS x",
        None,
        10**9,
    )
    mark_published(warehouse)
    config = write_config(
        tmp_path,
        f"warehouse: {{kind: bigquery, project: {PROJECT}, dataset: sql_bounds, "
        f"endpoint: '{bigquery_emulator.endpoint}'}}\n",
    )
    query = "SELECT x FROM numbers ORDER BY x"
    code, out, _ = _sql(config, capsys, "--format", "csv", query)
    assert code == 0
    assert out.splitlines() == ["x", *(str(x) for x in range(1, 3001))]
    code, out, _ = _sql(config, capsys, "--max-rows", "3", query)
    assert code == 0 and out.splitlines()[0] == "shape: (3, 1)"
    assert out.splitlines()[-1] == "3 rows shown; more not fetched (raise --max-rows)"
    code, out, _ = _sql(config, capsys, "--format", "csv", "SELECT x FROM numbers WHERE x > 3000")
    assert (code, out) == (0, "x\n")  # no rows: the header alone, as on DuckDB
    code, _, err = _sql(config, capsys, "DROP TABLE numbers")
    assert code == 1 and "read-only" in err


class _StillRunning:
    """A BigQuery job that is still running when the wait for it gives up (the client then
    raises concurrent.futures.TimeoutError, the builtin TimeoutError)."""

    cancelled = False

    def result(self, **kwargs: Any) -> None:
        raise TimeoutError

    def cancel(self, **kwargs: Any) -> None:
        self.cancelled = True


class _Client:
    """Just enough of a google.cloud.bigquery.Client to start one job (a local endpoint)."""

    _connection = SimpleNamespace(API_BASE_URL="http://127.0.0.1:9050")

    def __init__(self) -> None:
        self.job, self.configs = _StillRunning(), []

    def query(self, sql: str, job_config: Any, **kwargs: Any) -> _StillRunning:
        self.configs.append(job_config)
        return self.job


def test_a_bigquery_job_past_its_time_limit_is_cancelled():
    client = _Client()
    pages = bq.query_bounded(client, "SELECT 1", 10**9, 1.0, None)
    with pytest.raises(
        bq.BigQueryTimeout, match=r"^BigQuery query stopped at its time limit of 1 s$"
    ):
        next(pages)
    assert client.job.cancelled
    # BigQuery's own stop, a backstop: 1 s + the 30 s margin, in ms (the API takes a string)
    assert client.configs[0].job_timeout_ms == "31000"
    assert client.configs[0].maximum_bytes_billed == 10**9


def test_a_reader_that_stops_early_gets_no_traceback(published: Path):
    # `flopledger sql ... | head -1`: the pipe closes after the first line; the command ends
    # quietly with 141 (as a shell reports SIGPIPE), never a BrokenPipeError traceback.
    import subprocess
    import sys

    command = [sys.executable, "-m", "flopledger.cli.main", "sql", "--config", str(published),
               "--format", "csv", "SELECT i FROM range(10000000) t(i)"]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline() == b"i\n"
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait() == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err
