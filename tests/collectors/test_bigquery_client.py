"""The BigQuery door and the export block's config, without a server (the emulator tests are in
tests/pipelines/test_bigquery_source.py)."""

from __future__ import annotations

import socket
from datetime import date, datetime
from pathlib import Path

import pytest

from flopledger.clients.bigquery import BigQueryError, is_emulated, make_client
from flopledger.collectors.gcp_billing.bigquery import since_day
from flopledger.models import bigquery_sql
from flopledger.settings import ConfigError, load_config
from tests.conftest import write_config

TABLE = "billing-admin.billing_export.gcp_billing_export_resource_v1_01A3F5_7C2B9D_4E8F10"


def test_an_endpoint_gives_a_local_client_with_anonymous_credentials() -> None:
    client = make_client("billing-admin", "127.0.0.1:9050", None, "EU")
    assert client._connection.API_BASE_URL == "http://127.0.0.1:9050"
    assert client.project == "billing-admin" and client.location == "EU"
    assert is_emulated(client)


def test_no_credentials_is_one_line_saying_what_to_do(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("BIGQUERY_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with pytest.raises(BigQueryError) as error:
        make_client("billing-admin")
    message = str(error.value)
    assert "\n" not in message and "gcloud auth application-default login" in message


def test_the_export_queries_name_the_table_and_bind_the_bounds() -> None:
    rows = bigquery_sql("billing_export_rows", TABLE)
    assert f"FROM `{TABLE}`" in rows
    assert "_PARTITIONTIME >= TIMESTAMP(@since_day)" in rows
    assert "export_time >= @export_from" in rows and "export_time <= @export_until" in rows
    assert "--" not in rows  # sent without the file's comments


@pytest.mark.parametrize(
    "table",
    ["x.y", "p.d.t`; DROP TABLE x; --", "p.d.t\n", "p.d.t u", "p.d.tábla", "../p.d.t"],
)
def test_a_table_that_is_not_project_dataset_table_is_refused(tmp_path: Path, table: str) -> None:
    with pytest.raises(ValueError):
        bigquery_sql("billing_export_rows", table)
    config = write_config(
        tmp_path, f"sources:\n  gcp_billing:\n    bigquery: {{table: {table!r}}}\n"
    )
    with pytest.raises(ConfigError) as error:
        load_config(config)
    assert "sources.gcp_billing.bigquery.table" in str(error.value)


def test_the_export_block_defaults_and_its_refusals(tmp_path: Path) -> None:
    config = write_config(tmp_path, f"sources:\n  gcp_billing:\n    bigquery: {{table: {TABLE}}}\n")
    block = load_config(config).sources.gcp_billing.bigquery
    assert block.job_project == "billing-admin"  # jobs run where the table is, unless told
    assert (block.max_bytes_billed, block.trailing_days) == (10 * 2**30, 3)
    for bad in ("max_bytes_billed: 0", "trailing_days: -1", "limit: 5"):
        write_config(
            tmp_path, f"sources:\n  gcp_billing:\n    bigquery: {{table: {TABLE}, {bad}}}\n"
        )
        with pytest.raises(ConfigError):
            load_config(config)


def test_the_first_partition_read() -> None:
    today = date(2026, 11, 30)
    # Taken through Oct 9 06:00, trailing 3 days: partitions from Oct 6.
    assert since_day(datetime(2026, 10, 9, 6), date(2026, 10, 1), today, 3) == date(2026, 10, 6)
    # Nothing taken yet: from the start given (history_start, or a backfill's first day), less 3.
    assert since_day(None, date(2026, 10, 1), today, 3) == date(2026, 9, 28)
    # Nothing taken and no start: 90 days before today (Sep 1), less 0.
    assert since_day(None, None, today, 0) == date(2026, 9, 1)


def test_an_unreachable_endpoint_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from flopledger.cli.main import main

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = write_config(
        tmp_path,
        "warehouse: {kind: duckdb, path: w.duckdb}\nsources:\n  gcp_billing:\n"
        f'    bigquery: {{table: {TABLE}, endpoint: "http://127.0.0.1:{port}"}}\n',
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    last = err.rstrip("\n").splitlines()[-1]  # after any progress lines
    assert "Traceback" not in err
    assert last == (
        f"flopledger: BigQuery query failed: http://127.0.0.1:{port}: "
        "connection refused (nothing listens there)"
    )
