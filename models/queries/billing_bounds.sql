-- @query: One row: the first billed UTC day (GCP export or FOCUS) and the end of the latest billed usage window
--   (both NULL before any billing row has landed).
SELECT min(first) AS first, max(last) AS last
FROM (
    SELECT min(usage_day) AS first, max(usage_end) AS last FROM billing_line_items
    UNION ALL
    SELECT min(charge_day), max(charge_period_end) FROM focus_line_items
) AS bounds
