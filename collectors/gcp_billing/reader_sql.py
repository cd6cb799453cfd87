"""The columnar reader's statements (sql/ beside this file), written from the export schema.

Each file of sql/ is what `render(name)` returns, not SQL written by hand. The statement of
an extract's lines (billing_extract_lines) takes its per-field parts from EXPORT_FIELDS
(collectors/gcp_billing/schema.py) through schema_sql.py: the JSON shape each line is parsed
into, each number's text and checks, each timestamp, the labels' checks and the canonical
text row_id hashes; `billing_line_items`' columns come in BILLING_SCHEMA's order. Its macros
(billing_macros) take the records and lists whose keys they check, and Parquet rows as lines
(billing_parquet_lines) the timestamps and NUMERIC fields they write as an NDJSON extract
does. The rest (money, usage and credits typed within their bounds, the limits, USD, the
macros themselves) is the templates below. After changing either, write the files again:

    .venv/bin/python -m flopledger.collectors.gcp_billing.reader_sql

(tests/collectors/test_billing_reader_sql.py fails while the committed file is another).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from flopledger.collectors.gcp_billing.columnar import SKU_KINDS, SQL
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
    name,
    number_text,
    numbers,
    repeated,
    scalar_value,
    text_value,
    times,
)

CONCAT_WS = Layout("concat_ws(',',", "), '')", nested=True)
# The type each export type is parsed as: numbers as JSON, to read their text.
_PARSED_AS = {
    "STRING": "VARCHAR",
    "TIMESTAMP": "VARCHAR",
    "FLOAT": "JSON",
    "NUMERIC": "JSON",
    "BOOLEAN": "BOOLEAN",
}
_BIGQUERY_TIME = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})? UTC"
)
_PLAIN_NUMBER = r"-?(0|[1-9][0-9]*)(\.[0-9]+)?"


def _contains(text: str) -> str:
    return f"contains({text}, '.')"


def _shape(field: ExportField) -> Any:
    base = _shapes(field.fields) if field.type == "RECORD" else _PARSED_AS[field.type]
    return [base] if field.mode == "REPEATED" else base


def _shapes(fields: tuple[ExportField, ...]) -> dict[str, Any]:
    return {field.name: _shape(field) for field in fields}


def _json_shape(fields: tuple[ExportField, ...]) -> str:
    """json_transform's structure of an export row (fields in schema order)."""
    return json.dumps(_shapes(fields), separators=(",", ":"))


def _json_number(ref: str) -> str:
    """A JSON number's text (quotes trimmed: a number the line writes as a string)."""
    return f"nullif(trim(CAST({ref} AS VARCHAR), '\"'), '')"


def _iso(column: str) -> str:
    """A timestamp as canonical.py writes it: ISO 8601, microseconds only when there are any."""
    return (
        f"CASE WHEN epoch_us({column}) % 1000000 = 0 THEN strftime({column}, '%Y-%m-%dT%H:%M:%S') "
        f"ELSE strftime({column}, '%Y-%m-%dT%H:%M:%S.%f') END"
    )


def _row_member(field: ExportField, path: str, ref: str, indent: int) -> str:
    """A row's member: numbers and times from their typed columns, lists element by element."""
    if field.mode == "REPEATED":
        return _list_member(field, path, ref, indent)
    if field.type in NUMBERS:
        return text_value(f"({number_text('n_' + name(path), _contains)})")
    if field.type == "TIMESTAMP":
        return text_value(f"({_iso('t_' + name(path))})")
    return scalar_value(field, ref)


def _item_member(field: ExportField, path: str, ref: str, indent: int) -> str:
    """A member of a repeated record's element `x`."""
    if field.type in NUMBERS and field.mode != "REPEATED":
        return text_value(f"({number_text(_json_number(ref), _contains)})")
    return scalar_value(field, ref)


def _list_member(field: ExportField, path: str, ref: str, indent: int) -> str:
    if field.type != "RECORD":
        raise ValueError(f"no canonical text written for {ref} ({field.mode} {field.type})")
    item = canonical_object(field.fields, path, "x", _item_member, CONCAT_WS, indent + 4)
    return (
        f"CASE WHEN len({ref}) > 0 THEN '[' || array_to_string(list_transform({ref}, "
        f"lambda x: coalesce({item}, 'null')), ',') || ']' END"
    )


def _map(column: str, path: str) -> str:
    return (
        f"map_from_entries(list_transform(coalesce(r.{path}, []), lambda x: "
        "{'key': x.key, 'value': coalesce(x.value, '')}))::MAP(VARCHAR, VARCHAR)"
    )


def _label_check(path: str) -> str:
    """Every element a record with a key, and no key twice."""
    ref = f"r.{path}"
    return (
        f"AND ({ref} IS NULL OR (coalesce(list_bool_and(list_transform({ref}, lambda x: "
        f"x IS NOT NULL AND x.key IS NOT NULL)), true) AND len(list_distinct(list_transform("
        f"{ref}, lambda x: x.key))) = len({ref})))"
    )


def _columns(fields: tuple[ExportField, ...]) -> list[str]:
    row = canonical_object(fields, "", "r", _row_member, CONCAT_WS, 8)
    written = {
        "row_id": f"left(sha256(\n        {row}\n    ), 32)",
        "usage_day": "CAST(t_usage_start_time AS DATE)",
        "usage_start": "t_usage_start_time",
        "usage_end": "t_usage_end_time",
        "export_time": "t_export_time",
        "provider": "'gcp'",
        "credits_total": "coalesce(credits_sum, CAST(0 AS DECIMAL(38, 9)))",
        "credits": "list_transform(credit_rows, lambda c: {\n        'name': c.name, "
        "'amount': c.amount, 'full_name': c.full_name, 'id': c.id, 'type': c.type\n    })",
        "currency_conversion_rate": "rate",
        **label_columns(_map),
        "extra_fields": "CAST(NULL AS VARCHAR)",
        "source_line": "line",
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
            "source",
            *SKU_KINDS.names[2:],
        }
    )
    return ["line", "plain", *billing_columns("r", written, computed)]


def _records(fields: tuple[ExportField, ...], prefix: str = "$") -> list[str]:
    """JSON paths of the row and of each record in it outside any list, in schema order."""
    found = [prefix]
    for field in fields:
        if field.type == "RECORD" and field.mode != "REPEATED":
            found += _records(field.fields, f"{prefix}.{field.name}")
    return found


def _packed(items: list[str], sep: str, first: str, end: str, start: str) -> list[str]:
    """`items` joined by `sep` on lines of at most 100 characters, the first line beginning
    with `first`; a line that breaks ends with `end`, and the next begins with `start`."""
    lines = [first + items[0]]
    for item in items[1:]:
        if len(lines[-1] + sep + item) <= 100:
            lines[-1] += sep + item
        else:
            lines[-1] += end
            lines.append(start + item)
    return lines


def _macros(fields: tuple[ExportField, ...]) -> str:
    records = [f"'{path}'" for path in _records(fields)]
    lists = [f"json_extract(text, '$.{path}[*]')" for path, _ in repeated(fields)]
    return fill(
        MACROS,
        records="\n".join(_packed(records, ", ", " " * 8, ",", " " * 8)),
        lists="\n".join(_packed(lists, " || ", " " * 8, "", " " * 12 + "|| ")) + ",",
    )


def _numeric(field: ExportField) -> bool:
    """NUMERIC values are in the field (its own, or its members')."""
    return field.type == "NUMERIC" or any(_numeric(f) for f in field.fields)


def _decimal_text(field: ExportField) -> str | None:
    """A top-level field with its NUMERIC values as their decimal text (those of a record's
    own members: none is deeper in the export); None when it has none."""
    if not _numeric(field):
        return None
    if field.type == "NUMERIC" and field.mode != "REPEATED":
        return f"CAST({field.name} AS VARCHAR) AS {field.name}"
    if field.mode == "REPEATED" or any(
        _numeric(f) and (f.type != "NUMERIC" or f.mode == "REPEATED") for f in field.fields
    ):
        raise ValueError(f"no decimal text written for the NUMERIC values in {field.name}")
    members = ",\n".join(
        f"            '{f.name}': "
        + (f"CAST({field.name}.{f.name} AS VARCHAR)" if _numeric(f) else f"{field.name}.{f.name}")
        for f in field.fields
    )
    return f"CASE WHEN {field.name} IS NOT NULL THEN {{\n{members}\n        }} END AS {field.name}"


def _parquet_lines(fields: tuple[ExportField, ...]) -> str:
    replaced = [text for text in map(_decimal_text, fields) if text is not None]
    nested_times = [path for path in times(fields) if "." in path]
    if nested_times:
        raise ValueError(f"no BigQuery time text written for {nested_times}")
    return fill(
        PARQUET_LINES,
        times=block(8, [f"fl_bq_time({path}) AS {path}," for path in times(fields)]),
        numeric_records=block(8, replaced, ","),
    )


def _extract_lines(fields: tuple[ExportField, ...]) -> str:
    columns = [name(path) for path in numbers(fields)]
    return fill(
        EXTRACT_LINES,
        shape=_json_shape(fields),
        number_texts=block(
            8, [f"{_json_number('r.' + path)} AS n_{name(path)}," for path in numbers(fields)]
        ),
        times=block(
            8,
            [
                f"CASE WHEN regexp_full_match(r.{path}, '{_BIGQUERY_TIME}') THEN try_cast("
                f"left(r.{path}, length(r.{path}) - 4) AS TIMESTAMP) END AS t_{name(path)},"
                for path in times(fields)
            ],
        ),
        sku_kinds=block(8, [f"k.{column}," for column in SKU_KINDS.names[2:]]),
        number_forms=block(
            12,
            [
                f"AND (n_{n} IS NULL OR regexp_full_match(n_{n}, '{_PLAIN_NUMBER}'))"
                for n in columns
            ],
        ),
        number_digits=block(12, [f"AND fl_digits_ok(n_{n})" for n in columns]),
        label_checks=block(12, [_label_check(path) for path in LABEL_FIELDS.values()]),
        columns=block(4, _columns(fields), ","),
    )


# The macros, fl_keys_ok's records and lists left out.
MACROS = r"""-- @query: Macros the statement of an extract's lines (billing_extract_lines) uses, defined
-- once per in-memory session. Written by collectors/gcp_billing/reader_sql.py (fl_keys_ok's
-- records and lists from the export schema): change the generator, not this file, and run
-- `python -m flopledger.collectors.gcp_billing.reader_sql`.
-- A JSON number token's exact value as a key: sign, significant digits, decimal exponent
-- ('78.372405', '78.3724050' and '7.8372405e1' have one key). In two stages: the token's
-- sign, digits and point position, then the key.
CREATE OR REPLACE TEMP MACRO fl_num_stage(n) AS {
    's': CASE WHEN starts_with(n, '-') THEN '-' ELSE '' END,
    'd': replace(split_part(ltrim(lower(n), '-'), 'e', 1), '.', ''),
    'p': length(split_part(split_part(ltrim(lower(n), '-'), 'e', 1), '.', 1))
        + coalesce(TRY_CAST(nullif(split_part(lower(n), 'e', 2), '') AS BIGINT), 0)
};
CREATE OR REPLACE TEMP MACRO fl_num_key(x) AS
    CASE WHEN ltrim(x.d, '0') = '' THEN '0'
    ELSE x.s || rtrim(ltrim(x.d, '0'), '0') || 'e'
        || CAST(x.p - (length(x.d) - length(ltrim(x.d, '0'))) AS VARCHAR) END;
-- Every number that is a field's value in a JSON text, in document order (no string holds a
-- quote: the reader sends no line with a backslash), and their keys.
CREATE OR REPLACE TEMP MACRO fl_num_tokens(text) AS
    regexp_extract_all(text, '":(-?[0-9][0-9.eE+-]*)', 1);
CREATE OR REPLACE TEMP MACRO fl_num_keys(tokens) AS
    list_transform(tokens, lambda n: fl_num_key(fl_num_stage(n)));
-- A plain decimal text of at most 28 significant digits: Python's Decimal.normalize() (the
-- canonical text, so row_id) rounds a longer one to 28, which this model's text would not;
-- and at most 100 characters: collectors/money.py refuses an exponent past +/-1000
-- ('0.' and a thousand zeros and a 1), which no real amount or price comes near.
CREATE OR REPLACE TEMP MACRO fl_digits_ok(t) AS
    t IS NULL OR (length(ltrim(replace(ltrim(t, '-'), '.', ''), '0')) <= 28 AND length(t) <= 100);
-- Decimal.normalize() written as fixed point ('78.3724050' -> '78.372405', '-0.0' -> '0'),
-- of a plain decimal text (no exponent).
CREATE OR REPLACE TEMP MACRO fl_number_text(t) AS (
    CASE WHEN (CASE WHEN contains(t, '.') THEN rtrim(rtrim(t, '0'), '.') ELSE t END) = '-0'
    THEN '0' ELSE (CASE WHEN contains(t, '.') THEN rtrim(rtrim(t, '0'), '.') ELSE t END) END
);
-- collectors/money.py's to_usd: amount / rate rounded half to even to 9 places, exactly (in
-- HUGEINT nanos: the caller keeps |amount| below 1e11 so amount * 1e27 fits).
CREATE OR REPLACE TEMP MACRO fl_usd_nanos(n, d) AS
    (abs(n) * CAST(1000000000000000000 AS HUGEINT)) // d
    + CASE WHEN 2 * ((abs(n) * CAST(1000000000000000000 AS HUGEINT)) % d) > d
        OR (2 * ((abs(n) * CAST(1000000000000000000 AS HUGEINT)) % d) = d
            AND ((abs(n) * CAST(1000000000000000000 AS HUGEINT)) // d) % 2 = 1)
    THEN 1 ELSE 0 END;
CREATE OR REPLACE TEMP MACRO fl_usd(amount, rate) AS
    CASE WHEN rate IS NULL OR rate = 1 THEN amount
    WHEN rate <= 0 OR abs(amount) >= 1e11 THEN NULL  -- the reader sends these rows on
    ELSE CAST(sign(amount) * fl_usd_nanos(
        CAST(amount * CAST(1000000000 AS DECIMAL(38, 0)) AS HUGEINT),
        -- rate in atto-units as HUGEINT, whole part and fraction apart: rate * 1e18 as a
        -- DECIMAL(38, 18) overflows from a rate of 100 up (a JPY or IDR export)
        CAST(floor(rate) AS HUGEINT) * CAST(1000000000000000000 AS HUGEINT)
            + CAST((rate - floor(rate)) * CAST(1000000000000000000 AS DECIMAL(38, 0)) AS HUGEINT)
    ) AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) END;
-- A TIMESTAMP WITH TIME ZONE as a BigQuery extract writes it (the session is in UTC).
CREATE OR REPLACE TEMP MACRO fl_bq_time(ts) AS
    CASE WHEN epoch_us(ts) % 1000000 = 0 THEN strftime(ts, '%Y-%m-%d %H:%M:%S UTC')
    ELSE strftime(ts, '%Y-%m-%d %H:%M:%S.%f UTC') END;
-- A JSON text without its null and empty-list members: the per-row reader treats a missing
-- field, a null and an empty list alike (no string holds a quote, so none can match here).
CREATE OR REPLACE TEMP MACRO fl_no_empty(x) AS regexp_replace(regexp_replace(regexp_replace(
    x, '"[A-Za-z_]+":(null|\[\]),', '', 'g'),
    ',"[A-Za-z_]+":(null|\[\])\}', '}', 'g'),
    '\{"[A-Za-z_]+":(null|\[\])\}', '{}', 'g');
-- A JSON text without whitespace around its punctuation (json.dumps writes ', ' and ': ').
CREATE OR REPLACE TEMP MACRO fl_compact(x) AS
    regexp_replace(regexp_replace(x, '([,:\[{])\s+', '\1', 'g'), '\s+([,:\]}])', '\1', 'g');
-- A JSON text whose every object names each key once, and whose every top-level key is one
-- of `back`'s (the export's fields). fl_no_empty leaves out a null or empty member, and such a
-- member may be a duplicate key's later value (the per-row reader keeps the last, DuckDB the
-- first) or an unknown field (an extra field to the per-row reader): then the text is not plain.
CREATE OR REPLACE TEMP MACRO fl_unique(keys) AS coalesce(len(keys) = len(list_distinct(keys)), true);
CREATE OR REPLACE TEMP MACRO fl_keys_ok(text, back) AS
    list_has_all(json_keys(back), json_keys(text))
    AND coalesce(list_bool_and(list_transform(json_keys(text, [
<<records>>
    ]), lambda k: fl_unique(k))), true)
    AND coalesce(list_bool_and(list_transform(
<<lists>>
        lambda e: fl_unique(json_keys(e)))), true);
"""

# Parquet rows as NDJSON lines, the timestamps and NUMERIC fields left out.
PARQUET_LINES = r"""-- @query: One row per row of Parquet billing extracts (collectors/gcp_billing/schema.py's
-- EXPORT_PARQUET_SCHEMA): its file, its 1-based row number and the row as one line of an NDJSON
-- extract (timestamps as BigQuery writes them, `YYYY-MM-DD hh:mm:ss[.ffffff] UTC`), for
-- billing_extract_lines to read as it reads NDJSON. A float goes through as the same double;
-- any row that statement cannot prove plain is read again by the per-row reader. Written by
-- collectors/gcp_billing/reader_sql.py (the timestamps and NUMERIC fields from the export
-- schema): change the generator, not this file, and run
-- `python -m flopledger.collectors.gcp_billing.reader_sql`.
-- @param paths: the Parquet files (a list)
WITH rows AS (
    SELECT * REPLACE (
<<times>>
        -- NUMERIC fields (the prices) as their decimal text (an NDJSON extract's form): DuckDB
        -- reads a JSON number as a double, which would print 0.000000000 back as 0.0
<<numeric_records>>
    )
    FROM read_parquet($paths, filename = true, file_row_number = true)
)
SELECT
    filename AS source,
    file_row_number + 1 AS line,
    regexp_replace(
        CAST(to_json(rows) AS VARCHAR), ',"file_row_number":[0-9]+,"filename":"[^"]*"}$', '}'
    ) AS text
FROM rows
ORDER BY filename, file_row_number
"""

# The statement, its per-field parts left out (`<<name>>`: fill in schema_sql.py).
EXTRACT_LINES = r"""-- @query: One row per line of a billing export extract (NDJSON) that parses as a JSON object:
-- the `billing_line_items` columns the reader can prove exactly as the per-row normaliser
-- (collectors/gcp_billing/normalise.py) would write them, and `plain`. A row is plain when
-- nothing about it needs that normaliser: it parses losslessly into the export's schema (its
-- JSON written back is the line itself: no unknown field, no number DuckDB would round, no
-- value of another type), its numbers are plain decimals with at most 9 places (money; the
-- rate at most 18), its timestamps are BigQuery's `YYYY-MM-DD hh:mm:ss UTC`
-- within the limits, and its money, usage and labels pass every check. Every other row goes
-- to the normaliser, which loads it or quarantines it with its reason.
-- row_id is the sha256 of the canonical text collectors/gcp_billing/canonical.py writes:
-- keys sorted, empty values left out, numbers normalised, times in ISO 8601. That text needs
-- no JSON escaping here because the reader only sends printable ASCII lines without a
-- backslash. Written by collectors/gcp_billing/reader_sql.py from the export schema
-- (collectors/gcp_billing/schema.py): change the generator, not this file, and run
-- `python -m flopledger.collectors.gcp_billing.reader_sql` (tests/collectors/
-- test_billing_reader_sql.py checks the two agree). tests/collectors/test_billing_columnar.py
-- checks it row for row against the normaliser.
-- Tables: lines (source, line, text: the extracts' candidate lines), skus (collectors/
-- gcp_billing/columnar.py's sku_lookups: what collectors/skus.py says of each (service_name,
-- sku_description) pair the extract names), units (unit, seconds_per_unit).
-- @param earliest: limits.earliest
-- @param latest: limits.latest
-- @param max_money: limits.max_money
-- @param max_usage: limits.max_usage
-- @param max_accelerator_seconds: limits.max_accelerator_seconds
-- @param max_span_us: limits.max_row_span in microseconds
-- @param ingested_at: the run's clock
WITH parsed AS (
    SELECT source, line, text, try(json_transform(text, '<<shape>>')) AS r
    FROM lines
    WHERE starts_with(text, '{')
),
back AS (
    SELECT *, CAST(to_json(r) AS VARCHAR) AS back FROM parsed  -- r NULL: not plain
),
texts AS MATERIALIZED (
    SELECT
        source,
        line,
        r,
        -- the same document, numbers aside (both sides' numbers as #; a missing, null or
        -- empty member is none), and the same numbers (DuckDB reads a JSON number as a
        -- double: `back` holds what it kept)
        CASE WHEN back IS NULL THEN false  -- not JSON, or not the export's shape
        WHEN back = text THEN true  -- the common case, and the cheap one
        ELSE fl_no_empty(regexp_replace(back, '":-?[0-9][0-9.eE+-]*', '":#', 'g'))
            = fl_no_empty(regexp_replace(fl_compact(text), '":-?[0-9][0-9.eE+-]*', '":#', 'g'))
            AND fl_num_keys(fl_num_tokens(back))
                = fl_num_keys(fl_num_tokens(fl_compact(text)))
            -- a null or empty member left out above: no duplicate key, no unknown field
            AND (NOT regexp_matches(text, '"\s*:\s*(null|\[\s*\])') OR fl_keys_ok(text, back)) END
            AS lossless,
<<number_texts>>
<<times>>
        k.sku_kind IS NOT NULL AS sku_known,
<<sku_kinds>>
        u.seconds_per_unit
    FROM back
    LEFT JOIN skus AS k
        ON k.sku_description IS NOT DISTINCT FROM back.r.sku.description
        AND k.service_name IS NOT DISTINCT FROM back.r.service.description
    LEFT JOIN units AS u ON u.unit = lower(trim(back.r.usage.unit))
),
typed AS MATERIALIZED (
    SELECT
        *,
        CASE WHEN regexp_full_match(n_cost, '-?(0|[1-9][0-9]{0,28})(\.[0-9]{1,9})?') THEN CAST(n_cost AS DECIMAL(38, 9)) END AS cost,
        CASE WHEN regexp_full_match(n_cost_at_list, '-?(0|[1-9][0-9]{0,28})(\.[0-9]{1,9})?') THEN CAST(n_cost_at_list AS DECIMAL(38, 9)) END AS cost_at_list,
        -- usage below 1e25 and credits below 1e20 (far past any limit): usage times 3,600
        -- seconds and a row's credits summed stay inside DECIMAL(38, 9), which would
        -- otherwise fail the whole statement
        CASE WHEN regexp_full_match(n_usage_amount, '-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,9})?') THEN CAST(n_usage_amount AS DECIMAL(38, 9)) END AS usage_amount,
        CASE WHEN regexp_full_match(n_usage_amount_in_pricing_units, '-?(0|[1-9][0-9]{0,28})(\.[0-9]{1,9})?') THEN CAST(n_usage_amount_in_pricing_units AS DECIMAL(38, 9)) END AS usage_amount_in_pricing_units,
        -- below 1e10: the per-row reader's rate.quantize(1e-18) fails past 28 digits
        CASE WHEN regexp_full_match(n_currency_conversion_rate, '-?(0|[1-9][0-9]{0,9})(\.[0-9]{1,18})?')
            THEN CAST(n_currency_conversion_rate AS DECIMAL(38, 18)) END AS rate,
        CASE WHEN accelerator_type IS NOT NULL THEN CAST(
            CASE WHEN regexp_full_match(n_usage_amount, '-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,9})?')
            THEN CAST(n_usage_amount AS DECIMAL(38, 9)) END * seconds_per_unit AS DECIMAL(38, 9)
        ) END AS accelerator_seconds,
        list_transform(coalesce(r.credits, []), lambda x: {
            'name': x.name,
            'amount': coalesce(CASE WHEN regexp_full_match(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '-?(0|[1-9][0-9]{0,19})(\.[0-9]{1,9})?')
                THEN CAST(nullif(trim(CAST(x.amount AS VARCHAR), '"'), '') AS DECIMAL(38, 9)) END, CAST(0 AS DECIMAL(38, 9))),
            'full_name': x.full_name,
            'id': x.id,
            'type': x.type,
            'ok': x IS NOT NULL AND (nullif(trim(CAST(x.amount AS VARCHAR), '"'), '') IS NULL
                OR regexp_full_match(nullif(trim(CAST(x.amount AS VARCHAR), '"'), ''), '-?(0|[1-9][0-9]{0,19})(\.[0-9]{1,9})?')
                AND fl_digits_ok(nullif(trim(CAST(x.amount AS VARCHAR), '"'), '')))
        }) AS credit_rows
    FROM texts
),
checked AS MATERIALIZED (
    SELECT
        *,
        CAST(list_sum(list_transform(credit_rows, lambda c: c.amount)) AS DECIMAL(38, 9)) AS credits_sum,
        lossless
            AND t_usage_start_time IS NOT NULL AND t_usage_end_time IS NOT NULL
            AND t_usage_end_time >= t_usage_start_time
            AND t_usage_start_time BETWEEN $earliest AND $latest
            AND t_usage_end_time BETWEEN $earliest AND $latest
            AND epoch_us(t_usage_end_time) - epoch_us(t_usage_start_time) <= $max_span_us
            AND (r.export_time IS NULL OR t_export_time BETWEEN $earliest AND $latest)
<<number_forms>>
            -- no number the canonical text would round (row_id)
<<number_digits>>
            AND cost IS NOT NULL AND abs(cost) <= $max_money
            AND sku_known
            AND (accelerator_seconds IS NULL OR abs(accelerator_seconds) <= $max_accelerator_seconds)
            AND (n_cost_at_list IS NULL OR abs(cost_at_list) <= $max_money)
            AND (n_currency_conversion_rate IS NULL OR rate > 0)
            AND (n_usage_amount IS NULL OR abs(usage_amount) <= $max_usage)
            AND (n_usage_amount_in_pricing_units IS NULL
                OR abs(usage_amount_in_pricing_units) <= $max_usage)
            AND coalesce(list_bool_and(list_transform(credit_rows, lambda c: c.ok AND abs(c.amount) <= $max_money)), true)
<<label_checks>>
            AND (r.invoice.month IS NULL OR regexp_full_match(r.invoice.month, '[0-9]{4}(0[1-9]|1[0-2])'))
            AS plain_so_far
    FROM typed
),
judged AS MATERIALIZED (
    SELECT
        *,
        coalesce(
            plain_so_far
            AND abs(coalesce(credits_sum, 0)) <= $max_money
            -- another currency: USD exactly in HUGEINT nanos (|amount| < 1e11), within limits
            AND (rate IS NULL OR rate = 1 OR (
                abs(cost_usd) <= $max_money
                AND abs(credits_total_usd) <= $max_money
                AND (cost_at_list IS NULL OR abs(cost_at_list_usd) <= $max_money)
            )),
            false
        ) AS plain
    FROM (
        SELECT
            *,
            fl_usd(cost, rate) AS cost_usd,
            fl_usd(coalesce(credits_sum, CAST(0 AS DECIMAL(38, 9))), rate) AS credits_total_usd,
            fl_usd(cost_at_list, rate) AS cost_at_list_usd
        FROM checked
    )
)
SELECT
<<columns>>
FROM judged
WHERE plain
"""


_RENDER = {
    "billing_macros": _macros,
    "billing_parquet_lines": _parquet_lines,
    "billing_extract_lines": _extract_lines,
}
GENERATED = tuple(_RENDER)


def render(name: str, fields: tuple[ExportField, ...] = EXPORT_FIELDS) -> str:
    """The text of sql/<name>.sql written from `fields` (the export's schema by default)."""
    if name not in _RENDER:
        raise KeyError(f"collectors/gcp_billing/sql: {name!r} is not written by reader_sql.py")
    return _RENDER[name](fields)


def main() -> None:
    """Write every generated file of sql/ again, from the export schema."""
    for file in GENERATED:
        path = SQL.path(file)
        path.write_text(render(file))
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
