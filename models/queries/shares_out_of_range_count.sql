-- @query: One row: how many run allocations have a share outside [0, 1], or a negative amount
--   from a resource-hour whose cost is not negative.
SELECT count(*) AS n
FROM run_allocation AS a
JOIN resource_hour_pool AS p USING (project_id, resource_name, hour)
WHERE a.share < 0 OR a.share > 1 OR (p.effective_nanos >= 0 AND a.allocated_nanos < 0)
