-- @query: One project's idle cost share over a window of UTC days: (unallocated + allocated
--   idle cost) / effective cost, from idle_capacity_daily (projects with no cost left out).
-- @param window_start: the first day of the window (DATE).
-- @param window_end: the first day after the window (DATE).
SELECT project_id AS grp,
       CAST(sum(unallocated_idle_cost) + coalesce(sum(allocated_idle_cost), 0) AS DOUBLE)
         / CAST(sum(effective_cost) AS DOUBLE) AS value
FROM idle_capacity_daily
WHERE day >= $window_start AND day < $window_end
GROUP BY project_id
HAVING sum(effective_cost) > 0
