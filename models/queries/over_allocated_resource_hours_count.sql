-- @query: One row: how many resource-hours (whose cost is not negative) are allocated to runs
--   above their cost.
SELECT count(*) AS n
FROM resource_hour_pool AS p
JOIN (
    SELECT project_id, resource_name, hour, sum(allocated_nanos) AS a
    FROM run_allocation
    GROUP BY project_id, resource_name, hour
) AS s USING (project_id, resource_name, hour)
WHERE p.effective_nanos >= 0 AND s.a > p.effective_nanos
