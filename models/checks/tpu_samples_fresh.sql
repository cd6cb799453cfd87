-- @query: One row when tpu_samples' newest minute trails the end of the newest billed usage window
--   by more than 2 hours, or tpu_samples is empty. Measured against the bill, not the wall clock,
--   so a backfill of old data is judged on its own terms; a live deployment that stops
--   receiving telemetry shows up the same way.
-- @row: {what}
WITH latest AS (
    SELECT
        (SELECT max(minute) FROM tpu_samples) AS newest,
        (SELECT max(usage_end) FROM billing_line_items) AS billed
)
SELECT
    CASE
        WHEN newest IS NULL THEN 'tpu_samples is empty'
        ELSE 'newest minute ' || CAST(newest AS VARCHAR) || ', bill until ' || CAST(billed AS VARCHAR)
    END AS what
FROM latest
WHERE newest IS NULL OR billed - newest > INTERVAL 2 HOUR
