"""The in-place read's model of the export's rows, written from the export schema.

sql/billing_export_normalised.sql (beside this file) is what `render("billing_export_normalised")`
returns, not SQL written by hand. Its per-field parts come from EXPORT_FIELDS
(collectors/gcp_billing/schema.py) through collectors/gcp_billing/schema_sql.py: each
number's and timestamp's text, every string's characters, each repeated record's canonical
text, each number's checks (a FLOAT's shortest text), the labels' checks and the canonical
text row_id hashes; `billing_line_items`' columns come in BILLING_SCHEMA's order. The rest
(money, usage and credits typed within their bounds, the limits, USD in integer nano-units)
is the template below. After changing either, write the file again:

    .venv/bin/python -m flopledger.ingest.gcp_billing.in_place_sql

(tests/ingest/test_in_place_sql.py fails while the committed file is another).
"""

from __future__ import annotations

import sys

from flopledger.collectors.gcp_billing.columnar import SKU_KINDS
from flopledger.collectors.gcp_billing.normalise import LABEL_FIELDS
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS, ExportField
from flopledger.collectors.gcp_billing.schema_sql import (
    NUMBERS,
    Layout,
    billing_columns,
    block,
    canonical_object,
    fill,
    label_columns,
    leaves,
    name,
    number_text,
    repeated,
    scalar_value,
    text_value,
    times,
)
from flopledger.ingest.gcp_billing.in_place import MODEL, SQL

GENERATED = (MODEL,)
ARRAY = Layout("array_to_string([", "], ','), '')", nested=False)
_PLAIN_NUMBER = "^-?[0-9]+([.][0-9]+)?$"
_MONEY = "^-?[0-9]{1,20}([.][0-9]{1,9})?$"


def _strpos(text: str) -> str:
    return f"strpos({text}, '.') > 0"


def _credit_text() -> str:
    """A credit's amount (`x.amount`, a FLOAT) as Decimal.normalize() text."""
    return number_text("CAST(x.amount AS VARCHAR)", _strpos)


def shortest(text: str, value: str) -> str:
    """`text` (a FLOAT's normalised text) reads back as `value` and is the shortest text that
    does, as Python's repr (so the normaliser's Decimal) writes it: an integer below 2^53, or
    neither neighbour one place shorter reads back as it."""
    t = text if text.isidentifier() else f"({text})"
    shorter = f"rtrim(left({t}, length({t}) - 1), '.')"
    places = f"(length({t}) - strpos({t}, '.'))"
    step = f"CASE WHEN {places} = 1 THEN '1' ELSE '0.' || repeat('0', {places} - 2) || '1' END"
    up = (
        f"CAST(CAST(CAST(CAST({shorter} AS DECIMAL(38, 18)) + CASE WHEN starts_with({t}, '-') "
        f"THEN -1 ELSE 1 END * CAST({step} AS DECIMAL(38, 18)) AS DECIMAL(38, 18)) AS VARCHAR) "
        "AS DOUBLE)"
    )
    return (
        f"CAST({text} AS DOUBLE) = {value} AND (CASE WHEN strpos({t}, '.') = 0 THEN "
        f"abs({value}) < 9007199254740992 WHEN regexp_matches({t}, '^-?[0-9]{{1,19}}[.][0-9]{{1,18}}$') "
        f"THEN CAST({shorter} AS DOUBLE) <> {value} AND {up} <> {value} ELSE false END)"
    )


def _row_member(field: ExportField, path: str, ref: str, indent: int) -> str:
    """A row's member: numbers, times and lists from their texts in `numbers`."""
    if field.mode == "REPEATED":
        return f"c_{name(path)}"
    if field.type in NUMBERS:
        return text_value(f"n_{name(path)}")
    if field.type == "TIMESTAMP":
        return text_value(f"iso_{name(path)}")
    return scalar_value(field, ref)


def _item_member(field: ExportField, path: str, ref: str, indent: int) -> str:
    """A member of a repeated record's element `x`."""
    if field.type in NUMBERS and field.mode != "REPEATED":
        return text_value(f"({number_text(f'CAST({ref} AS VARCHAR)', _strpos)})")
    return scalar_value(field, ref)


def _items(column: str) -> str:
    """The name a map column's repeated key/value record goes by (`labels` -> `label_items`)."""
    return f"{column.removesuffix('s')}_items"


def _strings(fields: tuple[ExportField, ...], ref: str) -> list[str]:
    """Every string of a record (a repeated record's strings element by element), in order."""
    found = []
    for field in fields:
        at = f"{ref}.{field.name}"
        if field.mode == "REPEATED" and field.type == "RECORD":
            inner = " || ".join(_strings(field.fields, "x"))
            found.append(
                f"coalesce(array_to_string(list_transform({at}, lambda x: {inner}), ''), '')"
            )
        elif field.type == "RECORD":
            found += _strings(field.fields, at)
        elif field.type == "STRING":
            found.append(f"coalesce({at}, '')")
    return found


def _list_text(path: str, field: ExportField) -> str:
    """A repeated record's canonical text (none when it has no element)."""
    if field.type != "RECORD":
        raise ValueError(f"no canonical text written for e.{path} ({field.mode} {field.type})")
    labels = {p: c for c, p in LABEL_FIELDS.items()}
    length = _items(labels[path]) if path in labels else f"e.{path}"
    item = canonical_object(field.fields, path, "x", _item_member, ARRAY)
    return (
        f"CASE WHEN array_length({length}) > 0 THEN '[' || array_to_string(list_transform("
        f"e.{path}, lambda x: coalesce({item}, 'null')), ',') || ']' END AS c_{name(path)}"
    )


def _number_check(path: str, field: ExportField) -> str:
    """A plain decimal of at most 28 significant digits (Decimal.normalize() rounds a longer
    one); a FLOAT written as its shortest text."""
    n, t = f"n_{name(path)}", f"t_{name(path)}"
    check = (
        f"regexp_matches({t}, '{_PLAIN_NUMBER}') AND "
        f"length(trim(replace(ltrim({n}, '-'), '.', ''), '0')) <= 28"
    )
    if field.type == "FLOAT":
        check += f" AND {shortest(n, 'e.' + path)}"
    return f"AND ({t} IS NULL OR ({check}))"


def _credits_sum() -> str:
    amount = _credit_text()
    return (
        "coalesce(list_sum(list_transform(e.credits, lambda x: CASE WHEN x.amount IS NULL THEN "
        f"CAST(0 AS DECIMAL(38, 9)) WHEN regexp_matches({amount}, '{_MONEY}') THEN "
        f"CAST({amount} AS DECIMAL(38, 9)) END)), CAST(0 AS DECIMAL(38, 9))) AS credits_sum"
    )


def _credits_bad() -> str:
    amount = _credit_text()
    return (
        "coalesce(list_sum(list_transform(e.credits, lambda x: CASE WHEN x.amount IS NULL THEN "
        f"0 WHEN regexp_matches({amount}, '{_MONEY}') AND regexp_matches(CAST(x.amount AS "
        f"VARCHAR), '{_PLAIN_NUMBER}') AND {shortest(amount, 'x.amount')} AND "
        f"abs(CAST({amount} AS DECIMAL(38, 9))) <= CAST($max_money AS DECIMAL(38, 9)) THEN 0 "
        "ELSE 1 END)), 0) AS credits_bad"
    )


def _map(column: str, path: str) -> str:
    return (
        "CASE WHEN plain THEN map_from_entries(list_transform(coalesce("
        f"{_items(column)}, []), lambda x: {{'key': x.key, 'value': coalesce(x.value, '')}})) END"
    )


def _columns(fields: tuple[ExportField, ...]) -> list[str]:
    row = canonical_object(fields, "", "e", _row_member, ARRAY)
    written = {
        "row_id": f"CASE WHEN plain THEN left(sha256(\n{row}\n    ), 32) END",
        "usage_day": "CAST(ts_usage_start_time AS DATE)",
        "usage_start": "ts_usage_start_time",
        "usage_end": "ts_usage_end_time",
        "export_time": "ts_export_time",
        "provider": "'gcp'",
        "credits_total": "credits_sum",
        "credits": fill(CREDITS, amount=_credit_text()),
        "currency_conversion_rate": "rate",
        **label_columns(_map),
        "extra_fields": "CAST(NULL AS VARCHAR)",
        "source": "$source",
        "source_line": "CAST(NULL AS BIGINT)",
        "ingested_at": "$ingested_at",
    }
    computed = frozenset(
        {
            "usage_amount",
            "usage_amount_in_pricing_units",
            "cost",
            "cost_at_list",
            "cost_usd",
            "credits_total_usd",
            "cost_at_list_usd",
            "accelerator_seconds",
            *SKU_KINDS.names[2:],
        }
    )
    return [*billing_columns("e", written, computed), "plain", "e AS export_row"]


def _export_normalised(fields: tuple[ExportField, ...]) -> str:
    found = list(leaves(fields))
    number_fields = [(path, field) for path, field in found if field.type in NUMBERS]
    number_columns = [name(path) for path, _ in number_fields]
    return fill(
        EXPORT_NORMALISED,
        number_texts=block(
            8, [f"CAST(e.{path} AS VARCHAR) AS t_{name(path)}," for path, _ in number_fields]
        ),
        times=block(
            8, [f"CAST(e.{path} AS TIMESTAMP) AS ts_{name(path)}," for path in times(fields)]
        ),
        all_strings=block(8, [" || ".join(_strings(fields, "e")) + " AS all_strings,"]),
        label_items=block(
            8, [f"e.{path} AS {_items(column)}" for column, path in LABEL_FIELDS.items()], ","
        ),
        numbers=block(8, [f"{number_text('t_' + n, _strpos)} AS n_{n}," for n in number_columns]),
        iso=block(
            8,
            [
                f"strftime(ts_{t}, '%Y-%m-%dT%H:%M:%S') || coalesce('.' || lpad(CAST(nullif("
                f"epoch_us(ts_{t}) % 1000000, 0) AS VARCHAR), 6, '0'), '') AS iso_{t},"
                for t in map(name, times(fields))
            ],
        ),
        lists=block(
            8,
            [
                _list_text(path, field)
                for path, field in sorted(repeated(fields), key=lambda r: r[0])
            ],
            ",",
        ),
        credits_sum=block(8, [_credits_sum() + ","]),
        credits_bad=block(8, [_credits_bad() + ","]),
        sku_kinds=block(8, [f"k.{column}," for column in SKU_KINDS.names[2:]]),
        number_checks=block(12, [_number_check(path, field) for path, field in number_fields]),
        label_checks=block(
            12,
            [
                f"AND array_length(list_sort(list_distinct(list_transform({_items(column)}, "
                f"lambda x: x.key)))) = array_length({_items(column)})"
                for column in LABEL_FIELDS
            ],
        ),
        columns=block(4, _columns(fields), ","),
    )


# The credits column, a credit's amount left out.
CREDITS = """CASE WHEN plain THEN list_transform(coalesce(e.credits, []), lambda x: {
        'name': x.name,
        'amount': CAST(coalesce(CAST(<<amount>> AS DECIMAL(38, 9)), 0) AS DECIMAL(38, 9)),
        'full_name': x.full_name,
        'id': x.id,
        'type': x.type
    }) END"""
# The statement, its per-field parts left out (`<<name>>`: fill in schema_sql.py).
EXPORT_NORMALISED = r"""-- @query: One row per export row: the `billing_line_items` row the per-row normaliser
-- (collectors/gcp_billing/normalise.py) would write for it, computed where the export lies
-- (the billing export read in place, docs/bigquery.md), `plain`, and the row itself
-- (`export_row`). A row is plain when this statement can prove its columns are exactly the
-- normaliser's: every string printable ASCII without a quote or a backslash (so the canonical
-- text needs no JSON escaping), every number written as a plain decimal that reads back as the
-- same FLOAT64 and is the shortest text that does (the normaliser's repr), money with at most 9 places
-- (the rate at most 18), times, money, usage and labels within every check and limit, the SKU
-- classified. Every other row is handed, by its `export_row`, to the per-row normaliser, which
-- loads it or quarantines it with its reason; a non-plain row's other columns mean nothing.
-- row_id is the sha256 of the canonical text collectors/gcp_billing/canonical.py writes (keys
-- sorted, empty values left out, numbers as Decimal.normalize() in fixed point, times in ISO
-- 8601); USD is amount / rate rounded half to even to 9 places in integer nano-units
-- (collectors/money.py's to_usd). Written by ingest/gcp_billing/in_place_sql.py from the
-- export schema (collectors/gcp_billing/schema.py): change the generator, not this file, and
-- run `python -m flopledger.ingest.gcp_billing.in_place_sql` (tests/ingest/
-- test_in_place_sql.py checks the two agree). In DuckDB's dialect like the models;
-- warehouse/transpile.py makes it BigQuery's. tests/warehouse/
-- test_bigquery_warehouse_in_place.py checks it row for row against the normaliser on both
-- engines.
-- Tables: billing_export (the export table's rows, typed as Google's export schema has them:
-- on BigQuery the bounded read models/bigquery/billing_export_rows, put in its place at
-- run time), skus (collectors/gcp_billing/columnar.py's sku_lookups: what collectors/skus.py
-- says of each (service_name, sku_description) pair the read names), units (unit,
-- seconds_per_unit).
-- @param earliest: limits.earliest
-- @param latest: limits.latest
-- @param max_money: limits.max_money (as text or a decimal: cast here, as bqemulator types a NUMERIC parameter DECIMAL(18, 3))
-- @param max_usage: limits.max_usage
-- @param max_accelerator_seconds: limits.max_accelerator_seconds
-- @param max_span_us: limits.max_row_span in microseconds
-- @param ingested_at: the run's clock
-- @param source: the rows' source (`bigquery:` and the export table)
WITH texts AS (
    SELECT
        e,
<<number_texts>>
<<times>>
<<all_strings>>
        -- the repeated key/value records under names of their own (not the MAP columns)
<<label_items>>
    FROM billing_export AS e
),
numbers AS (
    SELECT
        *,
<<numbers>>
<<iso>>
        -- each repeated record's canonical text (none when empty)
<<lists>>
    FROM texts
),
typed AS (
    SELECT
        *,
        CASE WHEN regexp_matches(n_cost, '^-?[0-9]{1,20}([.][0-9]{1,9})?$') THEN CAST(n_cost AS DECIMAL(38, 9)) END AS cost,
        CASE WHEN regexp_matches(n_cost_at_list, '^-?[0-9]{1,20}([.][0-9]{1,9})?$') THEN CAST(n_cost_at_list AS DECIMAL(38, 9)) END AS cost_at_list,
        CASE WHEN regexp_matches(n_usage_amount, '^-?[0-9]{1,25}([.][0-9]{1,9})?$') THEN CAST(n_usage_amount AS DECIMAL(38, 9)) END AS usage_amount,
        CASE WHEN regexp_matches(n_usage_amount_in_pricing_units, '^-?[0-9]{1,25}([.][0-9]{1,9})?$') THEN CAST(n_usage_amount_in_pricing_units AS DECIMAL(38, 9)) END AS usage_amount_in_pricing_units,
        -- the rate, and the rate in integer atto-units (from its text: exact on both engines);
        -- at most 10 whole digits: the normaliser's rate.quantize(1e-18) holds 28 digits
        CASE WHEN regexp_matches(n_currency_conversion_rate, '^[0-9]{1,10}([.][0-9]{1,18})?$') THEN CAST(n_currency_conversion_rate AS DECIMAL(38, 18)) END AS rate,
        CASE WHEN regexp_matches(n_currency_conversion_rate, '^[0-9]{1,10}([.][0-9]{1,18})?$') THEN CAST(
            replace(n_currency_conversion_rate, '.', '')
            || repeat('0', 18 - CASE WHEN strpos(n_currency_conversion_rate, '.') > 0 THEN length(n_currency_conversion_rate) - strpos(n_currency_conversion_rate, '.') ELSE 0 END)
            AS HUGEINT) END AS rate_atto,
<<credits_sum>>
        -- credits whose amount is not a plain decimal of at most 9 places (or past the limit)
<<credits_bad>>
        k.sku_kind IS NOT NULL AS sku_known,
<<sku_kinds>>
        u.seconds_per_unit
    FROM numbers
    LEFT JOIN skus AS k
        ON k.sku_description IS NOT DISTINCT FROM numbers.e.sku.description
        AND k.service_name IS NOT DISTINCT FROM numbers.e.service.description
    LEFT JOIN units AS u ON u.unit = lower(trim(numbers.e.usage.unit))
),
nanos AS (
    SELECT
        *,
        CASE WHEN rate_atto > 0 THEN rate_atto END AS rate_d,  -- no division by 0
        CASE WHEN accelerator_type IS NOT NULL THEN CAST(usage_amount * CAST(seconds_per_unit AS BIGINT) AS DECIMAL(38, 9)) END AS accelerator_seconds,
        -- |amount| in nano-units times 10^18, from its text (|amount| < 10^11 keeps it in 38
        -- digits; built from text, as the engines multiply two 38-digit decimals differently)
        CASE WHEN abs(cost) < 100000000000 THEN CAST(replace(CAST(abs(cost) AS VARCHAR), '.', '') || repeat('0', 27 - CASE WHEN strpos(CAST(abs(cost) AS VARCHAR), '.') > 0 THEN length(CAST(abs(cost) AS VARCHAR)) - strpos(CAST(abs(cost) AS VARCHAR), '.') ELSE 0 END) AS HUGEINT) END AS cost_n,
        CASE WHEN abs(credits_sum) < 100000000000 THEN CAST(replace(CAST(abs(credits_sum) AS VARCHAR), '.', '') || repeat('0', 27 - CASE WHEN strpos(CAST(abs(credits_sum) AS VARCHAR), '.') > 0 THEN length(CAST(abs(credits_sum) AS VARCHAR)) - strpos(CAST(abs(credits_sum) AS VARCHAR), '.') ELSE 0 END) AS HUGEINT) END AS credits_n,
        CASE WHEN abs(cost_at_list) < 100000000000 THEN CAST(replace(CAST(abs(cost_at_list) AS VARCHAR), '.', '') || repeat('0', 27 - CASE WHEN strpos(CAST(abs(cost_at_list) AS VARCHAR), '.') > 0 THEN length(CAST(abs(cost_at_list) AS VARCHAR)) - strpos(CAST(abs(cost_at_list) AS VARCHAR), '.') ELSE 0 END) AS HUGEINT) END AS list_n
    FROM typed
),
usd AS (
    SELECT
        *,
        CASE WHEN rate IS NULL OR rate = 1 THEN cost
        ELSE CAST(CAST(sign(cost) * (cost_n // rate_d + CASE WHEN 2 * (cost_n % rate_d) > rate_d OR (2 * (cost_n % rate_d) = rate_d AND (cost_n // rate_d) % 2 = 1) THEN 1 ELSE 0 END) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS DECIMAL(38, 9)) END AS cost_usd,
        CASE WHEN rate IS NULL OR rate = 1 THEN credits_sum
        ELSE CAST(CAST(sign(credits_sum) * (credits_n // rate_d + CASE WHEN 2 * (credits_n % rate_d) > rate_d OR (2 * (credits_n % rate_d) = rate_d AND (credits_n // rate_d) % 2 = 1) THEN 1 ELSE 0 END) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS DECIMAL(38, 9)) END AS credits_total_usd,
        CASE WHEN rate IS NULL OR rate = 1 THEN cost_at_list
        ELSE CAST(CAST(sign(cost_at_list) * (list_n // rate_d + CASE WHEN 2 * (list_n % rate_d) > rate_d OR (2 * (list_n % rate_d) = rate_d AND (list_n // rate_d) % 2 = 1) THEN 1 ELSE 0 END) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS DECIMAL(38, 9)) END AS cost_at_list_usd
    FROM nanos
),
judged AS (
    SELECT
        *,
        coalesce(
            regexp_matches(all_strings, '^[ -!#-\[\]-~]*$')
<<number_checks>>
            AND ts_usage_start_time IS NOT NULL AND ts_usage_end_time IS NOT NULL
            AND ts_usage_end_time >= ts_usage_start_time
            AND ts_usage_start_time BETWEEN $earliest AND $latest
            AND ts_usage_end_time BETWEEN $earliest AND $latest
            AND epoch_us(ts_usage_end_time) - epoch_us(ts_usage_start_time) <= $max_span_us
            AND (ts_export_time IS NULL OR ts_export_time BETWEEN $earliest AND $latest)
            AND cost IS NOT NULL AND abs(cost) <= CAST($max_money AS DECIMAL(38, 9))
            AND (n_cost_at_list IS NULL OR (cost_at_list IS NOT NULL AND abs(cost_at_list) <= CAST($max_money AS DECIMAL(38, 9))))
            AND (n_usage_amount IS NULL OR (usage_amount IS NOT NULL AND abs(usage_amount) <= CAST($max_usage AS DECIMAL(38, 9))))
            AND (n_usage_amount_in_pricing_units IS NULL OR (usage_amount_in_pricing_units IS NOT NULL AND abs(usage_amount_in_pricing_units) <= CAST($max_usage AS DECIMAL(38, 9))))
            AND (n_currency_conversion_rate IS NULL OR (rate_atto > 0 AND rate_atto < 10000000000000000000000000000000000000))
            AND credits_bad = 0 AND abs(credits_sum) <= CAST($max_money AS DECIMAL(38, 9))
            AND sku_known
            AND (accelerator_seconds IS NULL OR abs(accelerator_seconds) <= CAST($max_accelerator_seconds AS DECIMAL(38, 9)))
            AND (rate IS NULL OR rate = 1 OR (
                cost_n IS NOT NULL AND credits_n IS NOT NULL AND (cost_at_list IS NULL OR list_n IS NOT NULL)
                AND abs(cost_usd) <= CAST($max_money AS DECIMAL(38, 9)) AND abs(credits_total_usd) <= CAST($max_money AS DECIMAL(38, 9))
                AND (cost_at_list IS NULL OR abs(cost_at_list_usd) <= CAST($max_money AS DECIMAL(38, 9)))))
<<label_checks>>
            AND (e.invoice.month IS NULL OR regexp_matches(e.invoice.month, '^[0-9]{4}(0[1-9]|1[0-2])$')),
            false
        ) AS plain
    FROM usd
)
SELECT
<<columns>>
FROM judged
"""


def render(name: str, fields: tuple[ExportField, ...] = EXPORT_FIELDS) -> str:
    """The text of sql/<name>.sql written from `fields` (the export's schema by default)."""
    if name not in GENERATED:
        raise KeyError(f"ingest/gcp_billing/sql: {name!r} is not written by in_place_sql.py")
    return _export_normalised(fields)


def main() -> None:
    """Write every generated file of sql/ again, from the export schema."""
    for file in GENERATED:
        path = SQL.path(file)
        path.write_text(render(file))
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
