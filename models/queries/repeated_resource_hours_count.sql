-- @query: One row: how many resource-hours appear more than once in idle_capacity.
SELECT count(*) AS n
FROM (
    SELECT project_id, resource_name, hour
    FROM idle_capacity
    GROUP BY project_id, resource_name, hour
    HAVING count(*) > 1
) AS repeated
