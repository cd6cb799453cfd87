-- @query: One row when some resource-hours appear more than once in idle_capacity: how many.
-- @row: {n} resource-hours repeated
SELECT count(*) AS n
FROM (
    SELECT project_id, resource_name, hour
    FROM idle_capacity
    GROUP BY project_id, resource_name, hour
    HAVING count(*) > 1
) AS repeated
HAVING count(*) > 0
