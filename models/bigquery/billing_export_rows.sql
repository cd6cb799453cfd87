-- @query: The billing export rows a run takes: every row of the partitions from @since_day on
--   (the export table is partitioned by ingestion day, `_PARTITIONTIME`) whose export_time is
--   at or after the latest one already taken. Every column, as the export has them, so the
--   rows go through the same normalisation as an extract file's.
-- @param since_day: the first ingestion-day partition read (DATE)
-- @param taken_through: the latest export_time already taken from this table (TIMESTAMP;
--   1970-01-01 before the first read); rows at that instant are read again and counted once
SELECT *
FROM `{export_table}`
WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)
  AND export_time >= @taken_through
