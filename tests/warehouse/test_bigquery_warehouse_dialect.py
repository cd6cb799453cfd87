"""The transpiler's rewrites of DuckDB forms BigQuery refuses or reads otherwise
(warehouse/transpile.py), run on bqemulator through the real client beside DuckDB: the same
values, worked by hand below. Small literal queries, no tables: the session's emulator only."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import pytest
from google.api_core.exceptions import Forbidden

from clients import bigquery as bq
from warehouse.bigquery import BigQueryWarehouse
from warehouse.bigquery_reader import bigquery_sql
from warehouse.transpile import to_bigquery

# greatest(NULL, 3.5) = 3.5 and least(2, NULL, 5) = 2 in DuckDB (NULLs skipped), NULL only when
# every argument is: a gpu_samples row with tensor_active_pct NULL and sm_active_pct 37.5 is
# busy 37.5, not NULL (resource_hour_busy, pod_gpu_hourly).
NULLS = (
    "SELECT greatest(sm, tensor) AS gpm, least(2, CAST(NULL AS BIGINT), 5) AS low, "
    "greatest(CAST(NULL AS DOUBLE), NULL) AS none "
    "FROM (SELECT 37.5::DOUBLE AS sm, CAST(NULL AS DOUBLE) AS tensor) AS gpu_samples"
)
# Group 1 holds 1, 2, 10: the median is 2; p95 sits at 0.95 * (3 - 1) = 1.9, between the 2nd
# and 3rd values: 2 + 0.9 * (10 - 2) = 9.2. Group 2 holds 4 and a NULL (skipped): 4 and 4.
PERCENTILES = (
    "SELECT d, quantile_cont(x, 0.5) AS p50, quantile_cont(x, 0.95) AS p95, count(*) AS n "
    "FROM (SELECT * FROM (VALUES (1, 1.0::DOUBLE), (1, 2.0), (1, 10.0), (2, 4.0), "
    "(2, NULL), (3, 99.0)) AS v(d, x)) AS t WHERE d < 3 GROUP BY d ORDER BY d"
)
# A month after 2024-01-31 is 2024-02-29 (clamped to the month's end, a leap year); a month
# before 2024-03-31 05:06:07 is 2024-02-29 05:06:07 (the time of day kept).
MONTHS = (
    "SELECT CAST(strptime('20240131', '%Y%m%d') + INTERVAL 1 MONTH AS TIMESTAMP) AS a, "
    "TIMESTAMP '2024-03-31 05:06:07' - INTERVAL 1 MONTH AS b"
)
QUALIFY = (
    "SELECT a FROM (SELECT 1 AS a UNION ALL SELECT 2) AS t "
    "QUALIFY row_number() OVER (ORDER BY a DESC) = 1"
)


def _naive(value: object) -> object:
    """BigQuery's TIMESTAMP comes back aware (UTC); DuckDB's naive TIMESTAMP is UTC."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    return value


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (NULLS, [(37.5, 2, None)]),
        (PERCENTILES, [(1, 2.0, 9.2, 3), (2, 4.0, 4.0, 2)]),
        (MONTHS, [(dt.datetime(2024, 2, 29), dt.datetime(2024, 2, 29, 5, 6, 7))]),
        (QUALIFY, [(2,)]),
    ],
    ids=["greatest-least-skip-nulls", "exact-percentiles", "calendar-intervals", "qualify"],
)
def test_bigquery_warehouse_rewrites_give_duckdb_values(bigquery_emulator, sql, expected):
    on_duckdb = duckdb.sql(sql).fetchall()
    rows = bigquery_emulator.client().query(to_bigquery(sql)).result()
    on_bigquery = [tuple(_naive(v) for v in row.values()) for row in rows]
    assert on_duckdb == on_bigquery
    assert [
        tuple(pytest.approx(v) if isinstance(v, float) else v for v in r) for r in expected
    ] == (on_bigquery)


def test_bigquery_warehouse_greatest_untranslated_would_be_null(bigquery_emulator):
    # Why the rewrite: GREATEST itself returns NULL for a NULL argument (BigQuery, and the
    # emulator), where DuckDB's skips it.
    rows = bigquery_emulator.client().query("SELECT GREATEST(37.5, NULL) AS g").result()
    assert [row["g"] for row in rows] == [None]
    assert duckdb.sql("SELECT greatest(37.5, NULL)").fetchall() == [(Decimal("37.5"),)]


class _DataEditorOnly:
    """The real client, as the documented least-privilege role holds it (BigQuery Data Editor
    on the dataset alone): BigQuery refuses it bigquery.datasets.create."""

    def __init__(self, client: object) -> None:
        self._client = client

    def __getattr__(self, name: str) -> object:
        return getattr(self._client, name)

    def create_dataset(self, *args: object, **kwargs: object) -> None:
        raise Forbidden("Access Denied: User does not have bigquery.datasets.create permission")


def test_bigquery_warehouse_uses_an_existing_dataset_without_creating_it(bigquery_emulator):
    client = bigquery_emulator.client()
    dataset = f"{client.project}.l17_existing"
    bq.ensure_dataset(client, dataset, None)  # not there: created (the set-up's role)
    assert client.get_dataset(dataset).dataset_id == "l17_existing"
    bq.ensure_dataset(_DataEditorOnly(client), dataset, None)  # every run after: read only
    with pytest.raises(bq.BigQueryError, match=r"^creating dataset .*l17_missing failed.*"):
        bq.ensure_dataset(_DataEditorOnly(client), f"{client.project}.l17_missing", None)


def test_bigquery_warehouse_takes_a_domain_scoped_project():
    # example.com:analytics is a project (its id holds a '.'): the dataset is what follows the
    # last '.', and the project is quoted whole.
    sql = to_bigquery("SELECT * FROM jobs", "example.com:analytics.flop")
    assert sql == "SELECT * FROM `example.com:analytics`.flop.jobs"
    catalogue = bigquery_sql(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'",
        "example.com:analytics.flop",
    )
    assert "`example.com:analytics.flop.INFORMATION_SCHEMA.TABLES`" in catalogue
    assert "table_schema = 'flop'" in catalogue
    warehouse = BigQueryWarehouse("example.com:analytics", "flop")
    assert warehouse.table_id("jobs") == "example.com:analytics.flop.jobs"
