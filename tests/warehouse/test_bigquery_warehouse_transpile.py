"""The models' DuckDB SQL as BigQuery's (warehouse/transpile.py), without an engine: what each
rewrite produces, and that every model transpiles. The parity tests
(test_bigquery_warehouse_parity.py) run the result on bqemulator."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from flopledger import models
from flopledger.dashboards import queries
from flopledger.settings import WarehouseConfig
from flopledger.warehouse import open_warehouse
from flopledger.warehouse.bigquery import BigQueryWarehouse
from flopledger.warehouse.transpile import columns, map_columns, time_kind, to_bigquery


def test_bigquery_warehouse_macros_are_inlined():
    # floor_div(a, b) = DIV(a, b) - 1 when the remainder is non-zero and the signs differ:
    # floor_div(-7, 2) = DIV(-7, 2) - 1 = -3 - 1 = -4 (BigQuery's DIV truncates toward zero).
    sql = to_bigquery("SELECT floor_div(a, b) AS q FROM t")
    assert "floor_div" not in sql.lower()
    assert "DIV(a, b)" in sql and "(MOD(a, b)) <> 0" in sql and "(a < 0) <> (b < 0)" in sql
    # from_nanos: integer nano-units to exact money (BIGNUMERIC x NUMERIC, no float), typed
    # NUMERIC(38, 9) as DuckDB types it DECIMAL(38, 9).
    money = to_bigquery("SELECT from_nanos(n) AS cost FROM t")
    assert (
        "CAST(CAST(n AS BIGNUMERIC(38, 0)) * CAST(0.000000001 AS NUMERIC(10, 9)) AS NUMERIC(38, 9))"
        in money
    )


def test_bigquery_warehouse_types_keep_their_precision():
    sql = to_bigquery(
        "SELECT CAST(a AS HUGEINT), CAST(b AS DECIMAL(38, 9)), CAST(c AS DECIMAL(38, 12)), "
        "CAST(d AS TIMESTAMP) FROM t"
    )
    assert "CAST(a AS BIGNUMERIC(38, 0))" in sql
    assert "CAST(b AS NUMERIC(38, 9))" in sql
    assert "CAST(c AS BIGNUMERIC(38, 12))" in sql
    assert "CAST(d AS TIMESTAMP)" in sql  # DuckDB's naive UTC TIMESTAMP, not DATETIME


def test_bigquery_warehouse_maps_are_json_objects():
    # Any key expression, a '/' in it included; a missing key is NULL on both engines.
    sql = to_bigquery("SELECT labels['k8s-label/team'], b.labels[s.key] FROM billing_line_items")
    assert "JSON_VALUE(labels['k8s-label/team'])" in sql
    assert "JSON_VALUE(b.labels[s.key])" in sql
    sizes = to_bigquery("SELECT cardinality(labels), CAST(to_json(labels) AS VARCHAR) FROM x")
    assert "ARRAY_LENGTH(JSON_KEYS(labels))" in sizes and "TO_JSON_STRING(labels)" in sizes


def test_bigquery_warehouse_tables_are_qualified_but_not_ctes():
    sql = to_bigquery("WITH runs AS (SELECT * FROM jobs) SELECT * FROM runs", "my-proj.flop")
    assert "FROM `my-proj`.flop.jobs" in sql and "FROM runs" in sql


def test_bigquery_warehouse_parameters_are_named():
    sql = to_bigquery("SELECT * FROM spend_daily WHERE day >= $since AND team = ?")
    assert "@since" in sql and "?" in sql


def test_bigquery_warehouse_raw_columns_carry_types_and_comments():
    found = {c.name: c for c in columns(models.model("billing_line_items"))}
    assert (found["usage_day"].type, found["usage_day"].mode) == ("DATE", "REQUIRED")
    assert found["cost_usd"].type == "NUMERIC"
    rate = found["currency_conversion_rate"]  # DECIMAL(38, 18): NUMERIC has 9 places
    assert (rate.type, rate.precision, rate.scale) == ("BIGNUMERIC", 38, 18)
    assert found["labels"].type == "JSON"
    assert found["credits"].mode == "REPEATED" and found["credits"].type == "RECORD"
    assert [f.name for f in found["credits"].fields][:2] == ["name", "amount"]
    assert found["usage_start"].description.startswith("Start of the usage window")


def test_bigquery_warehouse_is_chosen_by_config_without_connecting():
    config = WarehouseConfig(kind="bigquery", project="my-project", dataset="flopledger")
    warehouse = open_warehouse(config)
    assert isinstance(warehouse, BigQueryWarehouse)
    assert warehouse.dataset_id == "my-project.flopledger"
    assert "client" not in vars(warehouse)  # made on first use, not here


def test_bigquery_warehouse_refuses_a_table_name_that_is_not_an_identifier():
    warehouse = BigQueryWarehouse("my-project", "flopledger")
    with pytest.raises(ValueError, match="not a plain identifier"):
        warehouse.table_id("jobs; DROP TABLE jobs")


def test_bigquery_warehouse_sql_parses_as_bigquery_with_no_duckdb_only_construct():
    # Every model and named query transpiles and parses as BigQuery. bqemulator runs BigQuery
    # SQL by translating it back to DuckDB, so a DuckDB-only construct left in the output
    # would pass there and fail on Google: none may remain. Nor may a subscript other than a
    # map column's read as JSON_VALUE(m[key]): BigQuery subscripts a JSON column by a key, and
    # refuses a STRING one (JSON text) that the emulator would read.
    duckdb_only = (
        exp.Lambda,
        exp.Transform,
        exp.ArrayFilter,
        exp.ArraySort,
        exp.ArrayDistinct,
        exp.Map,  # BigQuery has no MAP
    )
    found = []
    texts = [(m.name, m.sql) for m in models.marts()]
    texts += [(name, models.query_sql(name)) for name in models.QUERIES.names()]
    for name, sql in texts:
        tree = sqlglot.parse_one(to_bigquery(sql), read="bigquery")
        found += [f"{name}: {n.sql('bigquery')[:60]}" for n in tree.find_all(*duckdb_only)]
        found += [f"{name}: {n.sql('bigquery')[:60]}" for n in _broken_subscripts(tree)]
        found += [
            f"{name}: {n.this}"
            for n in tree.find_all(exp.Anonymous)
            if str(n.this).lower().startswith(("list_", "map_", "epoch", "floor_div", "to_nanos"))
        ]
        found += [f"{name}: {problem}" for problem in _bigquery_refuses(tree)]
    assert found == []
    # The dashboards' queries, which the BigQuery reader transpiles the same way.
    for name in queries.names():
        tree = sqlglot.parse_one(to_bigquery(queries.text(name)), read="bigquery")
        found += [f"{name}: {n.sql('bigquery')[:60]}" for n in _broken_subscripts(tree)]
        found += [f"{name}: {n.sql('bigquery')[:60]}" for n in tree.find_all(*duckdb_only)]
        found += [f"{name}: {problem}" for problem in _bigquery_refuses(tree)]
    assert found == []


_CALENDAR = ("MONTH", "QUARTER", "YEAR")


def _bigquery_refuses(tree: exp.Expr) -> list[str]:
    """Forms BigQuery's grammar refuses (or reads otherwise) that bqemulator, which runs the
    SQL on DuckDB, would accept:

    - LATERAL (BigQuery has none; a correlated CROSS JOIN UNNEST is its form);
    - PERCENTILE_CONT / PERCENTILE_DISC as an aggregate (BigQuery: analytic only, with OVER);
    - TIMESTAMP +/- INTERVAL with a MONTH, QUARTER or YEAR part (refused for TIMESTAMP);
    - GREATEST / LEAST of arguments that may be NULL (NULL in BigQuery, skipped in DuckDB):
      each argument must be the rewrite's COALESCE(it, the others);
    - QUALIFY without WHERE, GROUP BY or HAVING (BigQuery requires one);
    - an aggregate's FILTER (WHERE ...) clause and ILIKE (BigQuery has neither);
    - a subquery reading a table in a JOIN's ON ("Unsupported subquery with table in join
      predicate"; one over UNNEST of an array is allowed);
    - FORMAT_DATE of anything the SQL does not show to be a DATE (BigQuery refuses it a
      TIMESTAMP: "No matching signature for function FORMAT_DATE"; the emulator formats it);
    - a DATE plus or minus an interval (a DATETIME in BigQuery, not the DATE that GREATEST or
      DATE_DIFF beside a DATE needs)."""
    found = [f"LATERAL {n.sql('bigquery')[:50]}" for n in tree.find_all(exp.Lateral)]
    found += [
        f"aggregate {n.sql('bigquery')[:50]}"
        for n in tree.find_all(exp.PercentileCont, exp.PercentileDisc)
        if not isinstance(n.parent, exp.Window)
    ]
    found += [
        f"calendar interval {n.parent.sql('bigquery')[:50]}"
        for n in tree.find_all(exp.Interval)
        if isinstance(n.parent, exp.Add | exp.Sub)
        and str(n.args.get("unit").name if n.args.get("unit") else "").upper().startswith(_CALENDAR)
    ]
    for n in tree.find_all(exp.Greatest, exp.Least):
        args = [n.this, *n.expressions]  # one argument (SQLGlot's UNNEST rewrite): itself
        if len(args) > 1 and not all(
            isinstance(a, exp.Coalesce) and len(a.expressions) == len(args) - 1 for a in args
        ):
            found.append(f"NULL-returning {n.sql('bigquery')[:50]}")
    found += [
        f"QUALIFY alone {n.sql('bigquery')[:50]}"
        for n in tree.find_all(exp.Select)
        if n.args.get("qualify") is not None
        and not any(n.args.get(k) is not None for k in ("where", "group", "having"))
    ]
    found += [f"FILTER {n.sql('bigquery')[:50]}" for n in tree.find_all(exp.Filter, exp.ILike)]
    for join in tree.find_all(exp.Join):
        on = join.args.get("on")
        if on is not None and any(q.find(exp.Table) for q in on.find_all(exp.Select)):
            found.append(f"table subquery in ON {on.sql('bigquery')[:50]}")
    found += [
        f"FORMAT_DATE of a TIMESTAMP {n.sql('bigquery')[:50]}"
        for n in tree.find_all(exp.TimeToStr)
        if isinstance(n.this, exp.TsOrDsToDate) and time_kind(n.this.this) != "DATE"
    ]
    found += [
        f"DATE plus an interval {n.sql('bigquery')[:50]}"
        for n in tree.find_all(exp.Add, exp.Sub)
        if isinstance(n.expression, exp.Interval) and time_kind(n.this) == "DATE"
    ]
    return found


def test_bigquery_warehouse_refusal_check_catches_each_form():
    # The DuckDB forms as SQLGlot alone writes them for BigQuery: the check above finds each.
    forms = {
        "LATERAL": "SELECT h FROM w, LATERAL (SELECT unnest(w.a) AS h) AS q",
        "aggregate": "SELECT d, quantile_cont(x, 0.5) FROM t GROUP BY d",
        "calendar interval": "SELECT CAST(t AS TIMESTAMP) + INTERVAL 1 MONTH FROM t",
        "NULL-returning": "SELECT greatest(a, b) FROM t",
        "QUALIFY alone": "SELECT a FROM t QUALIFY row_number() OVER () = 1",
        "table subquery in ON": "SELECT * FROM a JOIN b ON EXISTS (SELECT 1 FROM c WHERE c.k = a.k)",
        "FORMAT_DATE of a TIMESTAMP": "SELECT strftime(billing_period_start, '%Y%m') FROM t",
        "DATE plus an interval": "SELECT max(end_day) - INTERVAL 6 DAY FROM f",
    }
    for kind, sql in forms.items():
        raw = sqlglot.parse_one(
            sqlglot.transpile(sql, read="duckdb", write="bigquery")[0], read="bigquery"
        )
        assert [p for p in _bigquery_refuses(raw) if p.startswith(kind)], kind
        # No rewrite of these: commitment_demand_hourly's LATERAL is a CROSS JOIN of UNNEST in
        # the model itself (the same rows on DuckDB), and no model has the other; both refused.
        if kind not in ("LATERAL", "table subquery in ON"):
            assert _bigquery_refuses(sqlglot.parse_one(to_bigquery(sql), read="bigquery")) == []


def test_bigquery_warehouse_exact_percentiles_are_analytic():
    # quantile_cont as an aggregate: PERCENTILE_CONT over the GROUP BY keys in a subquery (the
    # WHERE moved inside it), and its MAX per group (each row of a group holds the same value).
    sql = to_bigquery("SELECT d, quantile_cont(x, 0.5) AS p FROM t WHERE y > 1 GROUP BY d")
    assert sql == (
        "SELECT d, MAX(t.__percentile_0) AS p FROM (SELECT *, PERCENTILE_CONT(x, 0.5) OVER "
        "(PARTITION BY d) AS __percentile_0 FROM t WHERE y > 1) AS t GROUP BY d"
    )
    assert "APPROX" not in to_bigquery(models.model("managed_inference_daily").sql)
    # median(x) is quantile_cont(x, 0.5), quantile(x, q) quantile_disc: BigQuery's names.
    assert to_bigquery("SELECT median(x) OVER (), quantile(x, 0.9) OVER () FROM t") == (
        "SELECT PERCENTILE_CONT(x, 0.5) OVER (), PERCENTILE_DISC(x, 0.9) OVER () FROM t"
    )


def test_bigquery_warehouse_calendar_intervals_and_null_skipping():
    sql = to_bigquery("SELECT strptime(m, '%Y%m%d') + INTERVAL 1 MONTH, t - INTERVAL 2 YEAR")
    assert (
        "TIMESTAMP(DATETIME_ADD(DATETIME(PARSE_TIMESTAMP('%Y%m%d', m)), INTERVAL 1 MONTH))" in sql
    )
    assert "TIMESTAMP(DATETIME_ADD(DATETIME(t), INTERVAL -2 YEAR))" in sql
    assert "t + INTERVAL '1' HOUR" in to_bigquery("SELECT t + INTERVAL 1 HOUR")  # allowed as is
    # greatest(a, b) = greatest(coalesce(a, b), coalesce(b, a)): a NULL a gives b, as DuckDB.
    assert to_bigquery("SELECT greatest(a, b), least(a, b, c)") == (
        "SELECT GREATEST(COALESCE(a, b), COALESCE(b, a)), "
        "LEAST(COALESCE(a, b, c), COALESCE(b, c, a), COALESCE(c, a, b))"
    )
    assert "WHERE TRUE QUALIFY" in to_bigquery("SELECT a FROM t QUALIFY row_number() OVER () = 1")


def _broken_subscripts(tree: exp.Expr) -> list[exp.Bracket]:
    """Subscripts BigQuery refuses or reads otherwise: one not on a map column (a JSON column
    in the BigQuery warehouse), or a map's not read as JSON_VALUE (a JSON value, not text)."""

    def fine(b: exp.Bracket) -> bool:
        on_map = isinstance(b.this, exp.Column) and b.this.name in map_columns()
        on_json = isinstance(b.this, exp.ParseJSON)  # JSON text parsed: a JSON value
        read = b.parent is not None and b.parent.sql("bigquery").startswith("JSON_VALUE(")
        return (on_map or on_json) and read

    return [b for b in tree.find_all(exp.Bracket) if not fine(b)]


def test_bigquery_warehouse_refuses_a_subscript_of_text():
    # The check above catches the broken forms: a subscript of JSON text (focus tags, VARCHAR)
    # and a map's subscript left as JSON.
    text = sqlglot.parse_one("SELECT JSON_VALUE(tags['team']) FROM t", read="bigquery")
    raw = sqlglot.parse_one("SELECT labels['team'] = 'x' FROM t", read="bigquery")
    good = sqlglot.parse_one(to_bigquery("SELECT labels['team'] FROM t"), read="bigquery")
    assert len(_broken_subscripts(text)) == len(_broken_subscripts(raw)) == 1
    assert _broken_subscripts(good) == []
    assert "tags" not in map_columns() and {"labels", "system_labels"} <= map_columns()


def test_bigquery_warehouse_list_lambdas_become_subqueries():
    sql = to_bigquery(
        "SELECT list_sum(list_transform(list_filter(credits, lambda c: c.type = 'X'), "
        "lambda c: c.amount)), list_sort(list_distinct(list_transform(credits, lambda c: c.type)))"
        " FROM billing_line_items"
    )
    assert "(SELECT SUM(c.amount) FROM UNNEST(credits) AS c WHERE c.type = 'X')" in sql
    assert "ARRAY(SELECT DISTINCT v FROM (SELECT c.type AS v FROM UNNEST(credits) AS c)" in sql
    # format('{}') is a CONCAT of the pieces and each value as text (null if one is null, as
    # DuckDB's format; BigQuery's FORMAT %t would write NULL, and the emulator refuses %t)
    assert "CONCAT('run ', CAST(a AS STRING), ' holds ', CAST(b AS STRING))" in to_bigquery(
        "SELECT format('run {} holds {}', a, b)"
    )
    assert "CONCAT(CAST(n AS STRING), ' h at 5%')" in to_bigquery("SELECT format('{} h at 5%', n)")


def test_bigquery_warehouse_decimal_text_keeps_every_place():
    # DuckDB writes CAST(-3.24 AS DECIMAL(38, 9)) as '-3.240000000'; BigQuery's CAST of a
    # NUMERIC to STRING would write '-3.24': FORMAT('%.9f') keeps DuckDB's text.
    sql = to_bigquery("SELECT CAST(CAST(x AS DECIMAL(38, 9)) AS VARCHAR) FROM t")
    assert "FORMAT('%.9f', CAST(x AS NUMERIC(38, 9)))" in sql


def test_bigquery_warehouse_strftime_formats_by_the_arguments_type():
    # SQLGlot writes every strftime as FORMAT_DATE, which BigQuery refuses a TIMESTAMP. A DATE
    # (usage_day is DATE in models/raw; a CAST; CURRENT_DATE) keeps FORMAT_DATE; a TIMESTAMP
    # (billing_period_start is TIMESTAMP in models/raw) is FORMAT_TIMESTAMP in UTC; a type the
    # SQL does not show, or a DATE with a time of day, is cast to TIMESTAMP (right for both).
    emitted = {
        "usage_day": "FORMAT_DATE('%Y%m', usage_day)",
        "CAST(t AS DATE)": "FORMAT_DATE('%Y%m', CAST(t AS DATE))",
        "current_date": "FORMAT_DATE('%Y%m', CURRENT_DATE)",
        "billing_period_start": "FORMAT_TIMESTAMP('%Y%m', billing_period_start, 'UTC')",
        "CAST(d AS TIMESTAMP)": "FORMAT_TIMESTAMP('%Y%m', CAST(d AS TIMESTAMP), 'UTC')",
        "t + INTERVAL 1 HOUR": (
            "FORMAT_TIMESTAMP('%Y%m', CAST(t + INTERVAL '1' HOUR AS TIMESTAMP), 'UTC')"
        ),
    }
    for argument, function in emitted.items():
        assert to_bigquery(f"SELECT strftime({argument}, '%Y%m') FROM t") == (
            f"SELECT {function} FROM t"
        ), argument
    assert to_bigquery("SELECT strftime(usage_day, '%Y-%m-%d %H') FROM t") == (
        "SELECT FORMAT_TIMESTAMP('%Y-%m-%d %H', CAST(usage_day AS TIMESTAMP), 'UTC') FROM t"
    )
    # The two models that format a month of a TIMESTAMP (FOCUS BillingPeriodStart).
    for mart in ("focus_costs", "spend_invoice_daily"):
        sql = to_bigquery(models.model(mart).sql)
        assert "FORMAT_TIMESTAMP('%Y%m', billing_period_start, 'UTC')" in sql, mart
        assert "FORMAT_DATE" not in sql, mart


def test_bigquery_warehouse_date_plus_days_stays_a_date():
    # DATE +/- INTERVAL n DAY is a DATETIME in BigQuery: DATE_ADD / DATE_SUB where the SQL shows
    # a DATE (a raw DATE column, a `day` / `<what>_day` column, a CAST, MAX of one, a scalar
    # subquery of one); a TIMESTAMP, an hour, or an amount per day is left as it was.
    emitted = {
        "usage_day + INTERVAL 1 DAY": "DATE_ADD(usage_day, INTERVAL 1 DAY)",
        "CAST(t AS DATE) - INTERVAL '7 days'": "DATE_SUB(CAST(t AS DATE), INTERVAL 7 DAY)",
        "max(f.end_day) - INTERVAL 6 DAY": "DATE_SUB(MAX(f.end_day), INTERVAL 6 DAY)",
        "(SELECT max(probe_day) FROM d) - INTERVAL (CAST($n AS INTEGER)) DAY": (
            "DATE_SUB((SELECT MAX(probe_day) FROM d), INTERVAL (CAST(@n AS INT64)) DAY)"
        ),
        "day + INTERVAL 2 WEEK": "DATE_ADD(day, INTERVAL 2 WEEK)",
        "usage_start + INTERVAL 1 DAY": "usage_start + INTERVAL '1' DAY",
        "hour - INTERVAL 1 HOUR": "hour - INTERVAL '1' HOUR",
        "run_rate_per_day + INTERVAL 1 DAY": "run_rate_per_day + INTERVAL '1' DAY",
        "cost_per_day + INTERVAL 1 DAY": "cost_per_day + INTERVAL '1' DAY",
        "hour_of_day + INTERVAL 1 DAY": "hour_of_day + INTERVAL '1' DAY",
    }
    for duckdb_form, bigquery_form in emitted.items():
        assert to_bigquery(f"SELECT {duckdb_form} FROM t") == (f"SELECT {bigquery_form} FROM t"), (
            duckdb_form
        )
    # a DATE aggregate less days (the trailing window of a run rate)
    sql = to_bigquery("SELECT greatest(min(s.day), max(f.end_day) - INTERVAL 6 DAY) FROM t")
    assert "DATE_SUB(MAX(f.end_day), INTERVAL 6 DAY)" in sql


def test_bigquery_warehouse_map_entries_of_parameters_are_paired_arrays():
    # billing_spend_by_day matches FOCUS tags (JSON text) against the label parameters with
    # map_entries(map(keys, values)) and a JSONPath built from each key: BigQuery has no MAP
    # nor map_entries, and takes only a constant JSONPath.
    sql = to_bigquery(
        "SELECT NOT EXISTS (SELECT 1 FROM unnest(map_entries(map($k, $v))) AS want(e) "
        "WHERE json_extract_string(tags, '$.\"' || e.key || '\"') IS DISTINCT FROM e.value) FROM f"
    )
    assert sql == (
        "SELECT NOT EXISTS(SELECT 1 FROM UNNEST(ARRAY(SELECT AS STRUCT map_key AS key, "
        "map_value AS value FROM UNNEST(@k) AS map_key WITH OFFSET AS key_at JOIN UNNEST(@v) "
        "AS map_value WITH OFFSET AS value_at ON key_at = value_at ORDER BY key_at)) AS e "
        "WHERE JSON_VALUE(PARSE_JSON(tags)[e.key], '$') IS DISTINCT FROM e.value) FROM f"
    )
    assert "MAP(" not in to_bigquery(models.query_sql("billing_spend_by_day")).upper()
