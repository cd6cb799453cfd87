-- @query: Macros the statement of an extract's lines (billing_extract_lines) uses, defined
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
        '$', '$.service', '$.sku', '$.project', '$.location', '$.resource', '$.price',
        '$.subscription', '$.usage', '$.invoice', '$.adjustment_info', '$.consumption_model'
    ]), lambda k: fl_unique(k))), true)
    AND coalesce(list_bool_and(list_transform(
        json_extract(text, '$.project.labels[*]') || json_extract(text, '$.project.ancestors[*]')
            || json_extract(text, '$.labels[*]') || json_extract(text, '$.system_labels[*]')
            || json_extract(text, '$.tags[*]') || json_extract(text, '$.credits[*]'),
        lambda e: fl_unique(json_keys(e)))), true);
