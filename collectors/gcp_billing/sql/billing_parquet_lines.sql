-- @query: One row per row of Parquet billing extracts (collectors/gcp_billing/schema.py's
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
        fl_bq_time(usage_start_time) AS usage_start_time,
        fl_bq_time(usage_end_time) AS usage_end_time,
        fl_bq_time(export_time) AS export_time,
        -- NUMERIC fields (the prices) as their decimal text (an NDJSON extract's form): DuckDB
        -- reads a JSON number as a double, which would print 0.000000000 back as 0.0
        CASE WHEN price IS NOT NULL THEN {
            'effective_price': CAST(price.effective_price AS VARCHAR),
            'tier_start_amount': CAST(price.tier_start_amount AS VARCHAR),
            'unit': price.unit,
            'pricing_unit_quantity': CAST(price.pricing_unit_quantity AS VARCHAR),
            'list_price': CAST(price.list_price AS VARCHAR),
            'effective_price_default': CAST(price.effective_price_default AS VARCHAR),
            'list_price_consumption_model': CAST(price.list_price_consumption_model AS VARCHAR)
        } END AS price
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
