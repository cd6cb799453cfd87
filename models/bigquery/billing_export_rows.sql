-- @query: The billing export rows a run takes: every row of the partitions from @since_day on
--   (the export table is partitioned by ingestion day, `_PARTITIONTIME`) whose export_time is
--   from @export_from to @export_until. Every column, as the export has them, so the rows go
--   through the same normalisation as an extract file's.
-- @param since_day: the first ingestion-day partition read (DATE)
-- @param export_from: the first export_time read (TIMESTAMP): the latest one already taken
--   less the trailing window (1970-01-01 before the first read); rows read again are taken
--   once, by their row id
-- @param export_until: the last export_time read (TIMESTAMP): 9999-12-31 for a plain run; a
--   backfill's is the latest already taken, so that it never moves that watermark
SELECT *
FROM `{export_table}`
WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)
  AND export_time >= @export_from
  AND export_time <= @export_until
