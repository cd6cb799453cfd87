-- @query: One row when some node-hours' GPU seconds in pod_gpu_hourly (observed + unobserved,
--   over every pod and the no-pod row) are not 60 x that node-hour's gpu_samples rows: how many.
-- @row: {n} node-hours do not close per pod
WITH telemetry AS (
    SELECT node, date_trunc('hour', minute) AS hour, 60 * count(*) AS seconds
    FROM gpu_samples
    GROUP BY node, hour
),
pods AS (
    SELECT node, hour, sum(observed_gpu_seconds + unobserved_gpu_seconds) AS seconds
    FROM pod_gpu_hourly
    GROUP BY node, hour
)
SELECT count(*) AS n
FROM telemetry
FULL JOIN pods USING (node, hour)
WHERE telemetry.seconds IS DISTINCT FROM pods.seconds
HAVING count(*) > 0
