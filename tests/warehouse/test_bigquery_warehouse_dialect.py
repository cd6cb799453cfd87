"""The transpiler's rewrites of DuckDB forms BigQuery refuses or reads otherwise
(warehouse/transpile.py), run on bqemulator through the real client beside DuckDB: the same
values, worked by hand below. Small literal queries, no tables: the session's emulator only."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from google.api_core.exceptions import Forbidden

from flopledger.clients import bigquery as bq
from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.bigquery_reader import bigquery_sql, naive_utc
from flopledger.warehouse.transpile import to_bigquery

# greatest(NULL, 3.5) = 3.5 and least(2, NULL, 5) = 2 in DuckDB (NULLs skipped), NULL only when
# every argument is: a gpu_samples row with tensor_active_pct NULL and sm_active_pct 37.5 is
# busy 37.5, not NULL (resource_hour_busy, pod_gpu_hourly).
NULLS = (
    "SELECT greatest(sm, tensor) AS gpm, least(2, CAST(NULL AS BIGINT), 5) AS low, "
    "greatest(CAST(NULL AS DOUBLE), NULL) AS none "
    "FROM (SELECT 37.5::DOUBLE AS sm, CAST(NULL AS DOUBLE) AS tensor) AS gpu_samples"
)
# Group 1 holds 1, 2, 10: the median is 2; p95 sits at 0.95 * (3 - 1) = 1.9, between the 2nd
# and 3rd values: 2 + 0.9 * (10 - 2) = 9.2. median is quantile_cont(x, 0.5): 2; quantile_disc
# at 0.9 is the first value whose cumulative share reaches 0.9 (1/3, 2/3, 1): 10. Group 2 holds
# 4 and a NULL (skipped): 4 every time.
PERCENTILES = (
    "SELECT d, quantile_cont(x, 0.5) AS p50, quantile_cont(x, 0.95) AS p95, count(*) AS n, "
    "median(x) AS med, quantile_disc(x, 0.9) AS d90 "
    "FROM (SELECT * FROM (VALUES (1, 1.0::DOUBLE), (1, 2.0), (1, 10.0), (2, 4.0), "
    "(2, NULL), (3, 99.0)) AS v(d, x)) AS t WHERE d < 3 GROUP BY d ORDER BY d"
)
# A month after 2024-01-31 is 2024-02-29 (clamped to the month's end, a leap year); a month
# before 2024-03-31 05:06:07 is 2024-02-29 05:06:07 (the time of day kept).
MONTHS = (
    "SELECT CAST(strptime('20240131', '%Y%m%d') + INTERVAL 1 MONTH AS TIMESTAMP) AS a, "
    "TIMESTAMP '2024-03-31 05:06:07' - INTERVAL 1 MONTH AS b"
)
# strftime by its argument's type (FORMAT_DATE of a TIMESTAMP is refused by BigQuery): the
# month of 2026-03-31 23:59:59 is 202603, of 2026-04-01 202604; a DATE with a time of day is
# its midnight.
FORMATS = (
    "SELECT strftime(TIMESTAMP '2026-03-31 23:59:59', '%Y%m') AS a, "
    "strftime(DATE '2026-04-01', '%Y%m') AS b, strftime(DATE '2026-04-01', '%Y-%m-%d %H:%M') AS c"
)
# A DATE less 6 days (DATE_SUB on BigQuery, a DATE; DuckDB's is its midnight): 2026-03-01 less 6
# days is 2026-02-23, 6 days before it, and after 2026-02-20 (the greatest of the two).
DAYS = (
    "SELECT end_day - INTERVAL 6 DAY = DATE '2026-02-23' AS a, "
    "date_diff('day', greatest(end_day - INTERVAL 6 DAY, DATE '2026-02-20'), end_day) AS b "
    "FROM (SELECT DATE '2026-03-01' AS end_day) AS f"
)
# FOCUS tags (JSON text) matched against label keys and values (billing_spend_by_day): row 1
# has both, row 2 lacks env, row 3 has another env, row 4 a number where text is wanted ('1').
TAGS = (
    "SELECT id, NOT EXISTS (SELECT 1 FROM unnest(map_entries(map(['team', 'env'], ['llm', "
    "'1']))) AS want(e) WHERE json_extract_string(f.tags, '$.\"' || e.key || '\"') IS "
    'DISTINCT FROM e.value) AS matches FROM (SELECT 1 AS id, \'{"team": "llm", "env": '
    '"1", "n": 2}\' AS tags UNION ALL SELECT 2, \'{"team": "llm"}\' UNION ALL SELECT 3, '
    '\'{"team": "llm", "env": "dev"}\' UNION ALL SELECT 4, \'{"team": "llm", '
    '"env": 1}\') AS f ORDER BY id'
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
        (PERCENTILES, [(1, 2.0, 9.2, 3, 2.0, 10.0), (2, 4.0, 4.0, 2, 4.0, 4.0)]),
        (MONTHS, [(dt.datetime(2024, 2, 29), dt.datetime(2024, 2, 29, 5, 6, 7))]),
        (QUALIFY, [(2,)]),
        (FORMATS, [("202603", "202604", "2026-04-01 00:00")]),
        (DAYS, [(True, 6)]),
        (TAGS, [(1, True), (2, False), (3, False), (4, True)]),
    ],
    ids=[
        "greatest-least-skip-nulls",
        "exact-percentiles",
        "calendar-intervals",
        "qualify",
        "strftime-by-type",
        "date-less-days",
        "tags-match-labels",
    ],
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


def test_bigquery_warehouse_reads_38_place_bignumerics_as_decimal128():
    # 1/3 as BIGNUMERIC (38 places) does not fit 38 digits with its integer digit: rounded
    # half-even to 37 places, 0.333...3 (37 threes); 2/3 to 0.666...67. Money (9 places) stays
    # exact at 9 places; 10^40 (41 integer digits) fits no decimal128: DOUBLE 1e40.
    with_context = Decimal("0." + "3" * 38), Decimal("0." + "6" * 38)
    table = pa.table(
        {
            "share": pa.array([*with_context, None], pa.decimal256(76, 38)),
            "cost": pa.array([Decimal("2224.449648000"), None, None], pa.decimal256(76, 38)),
            "huge": pa.array([Decimal(10) ** 40, None, None], pa.decimal256(76, 0)),
        }
    )
    out = naive_utc(table)
    assert out.schema.field("share").type == pa.decimal128(38, 37)
    assert out.column("share").to_pylist() == [
        Decimal("0." + "3" * 37),
        Decimal("0." + "6" * 36 + "7"),
        None,
    ]
    assert out.schema.field("cost").type == pa.decimal128(38, 6)
    assert out.column("cost").to_pylist()[0] == Decimal("2224.449648")
    assert out.schema.field("huge").type == pa.float64()
    assert out.column("huge").to_pylist()[0] == 1e40
    assert pl.from_arrow(out).shape == (3, 3)  # polars reads it (it panics on decimal256)


def test_bigquery_warehouse_sql_reads_a_bignumeric_quotient(bigquery_emulator):
    # `flopledger sql` over a BIGNUMERIC quotient (what an average over nanos gives): no
    # 256-bit decimal reaches polars. 7 / 4 = 1.75 exactly.
    sql = "SELECT CAST(7 AS BIGNUMERIC) / 4 AS q, CAST(1 AS BIGNUMERIC) / 3 AS third"
    rows = naive_utc(bq.run_query(bigquery_emulator.client(), sql, None, 10**9))
    frame = pl.from_arrow(rows)
    assert isinstance(frame, pl.DataFrame)
    q, third = frame.row(0)
    # bqemulator computes the quotient to 9 places, BigQuery to 38 (the test above reads those)
    assert q == Decimal("1.75") and str(third).startswith("0.333333333")
    assert all(t.bit_width == 128 for t in rows.schema.types if pa.types.is_decimal(t))
