-- @query: One team's mean utilisation (percent) over the runs started in a window of UTC days,
--   weighted by accelerator-hours (team '__unallocated__' for runs without one; runs
--   without telemetry left out).
-- @param window_start: the first day of the window (DATE).
-- @param window_end: the first day after the window (DATE).
SELECT coalesce(team, '__unallocated__') AS grp,
       sum(mean_utilisation_pct * accelerator_hours) / sum(accelerator_hours) AS value
FROM cost_per_run
WHERE mean_utilisation_pct IS NOT NULL AND accelerator_hours > 0
  AND CAST(started_at AS DATE) >= $window_start AND CAST(started_at AS DATE) < $window_end
GROUP BY grp
