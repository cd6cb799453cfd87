-- @query: One row: the first billed UTC day and the end of the latest billed usage window
--   (both NULL before any billing row has landed).
SELECT min(usage_day) AS first, max(usage_end) AS last
FROM billing_line_items
