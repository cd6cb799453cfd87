-- @query: The UTC usage days of the rows the next read would take (the same partition and
--   export_time filters as billing_export_rows, one column scanned): the days `flopledger
--   run` materialises.
-- @param since_day: the first ingestion-day partition read (DATE)
-- @param taken_through: the latest export_time already taken from this table (TIMESTAMP)
SELECT DISTINCT DATE(usage_start_time) AS usage_day
FROM `{export_table}`
WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)
  AND export_time >= @taken_through
ORDER BY usage_day
