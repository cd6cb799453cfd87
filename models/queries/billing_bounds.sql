-- @query: One row: the first billed UTC day (GCP export or FOCUS), the end of the latest billed
--   usage window (both NULL before any billing row has landed) and how many billing rows there
--   are.
SELECT min(first) AS first, max(last) AS last, sum(rows_) AS rows_
FROM (
    SELECT min(usage_day) AS first, max(usage_end) AS last, count(*) AS rows_ FROM billing_line_items
    UNION ALL
    SELECT min(charge_day), max(charge_period_end), count(*) FROM focus_line_items
) AS bounds
