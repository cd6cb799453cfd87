-- @query: One device and dtype whose latest probe day falls within a lookback from the newest
--   probe day: its best verified TFLOP/s on that day and its best on any earlier day (devices
--   with no earlier day left out).
-- @param lookback_days: how many days before the newest probe day to look at (INTEGER).
-- (probe_day, not day, inside: the result's `day` is last_day, and a GROUP BY name that is
-- both a column and an output alias is read differently by DuckDB and BigQuery.)
WITH daily AS (
    SELECT node, device_index, dtype, CAST(measured_at AS DATE) AS probe_day, max(achieved_tflops) AS best
    FROM probe_results
    WHERE verified AND achieved_tflops IS NOT NULL
    GROUP BY node, device_index, dtype, CAST(measured_at AS DATE)
),
latest AS (
    SELECT *, max(probe_day) OVER (PARTITION BY node, device_index, dtype) AS last_day FROM daily
)
SELECT node, device_index, dtype, last_day AS day,
       max(CASE WHEN probe_day = last_day THEN best END) AS now_tflops,
       max(CASE WHEN probe_day < last_day THEN best END) AS before_tflops
FROM latest
WHERE last_day >= (SELECT max(probe_day) FROM daily) - INTERVAL (CAST($lookback_days AS INTEGER)) DAY
GROUP BY node, device_index, dtype, last_day
HAVING max(CASE WHEN probe_day < last_day THEN best END) IS NOT NULL
ORDER BY node, device_index, dtype
