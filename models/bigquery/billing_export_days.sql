-- @query: The UTC usage days of the rows the next read would take (the same partition and
--   export_time filters as billing_export_rows, one column scanned): the days `flopledger
--   run` materialises.
-- @param since_day: the first ingestion-day partition read (DATE)
-- @param export_from: the first export_time read: the latest taken less the trailing window
-- @param export_until: the last export_time read (a backfill's: the latest taken)
SELECT DISTINCT DATE(usage_start_time) AS usage_day
FROM `{export_table}`
WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)
  AND export_time >= @export_from
  AND export_time <= @export_until
ORDER BY usage_day
