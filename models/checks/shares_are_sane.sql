-- @query: One row when some run allocation has a share outside [0, 1] or a negative amount from
--   a resource-hour whose cost is not negative, or some resource-hour (whose cost is not
--   negative) is allocated to runs above its cost: how many of each.
-- @row: {shares} shares outside [0, 1]; {over} resource-hours allocated above their cost
WITH shares AS (
    SELECT count(*) AS n
    FROM run_allocation AS a
    JOIN resource_hour_pool AS p USING (project_id, resource_name, hour)
    WHERE a.share < 0 OR a.share > 1 OR (p.effective_nanos >= 0 AND a.allocated_nanos < 0)
),
over AS (
    SELECT count(*) AS n
    FROM resource_hour_pool AS p
    JOIN (
        SELECT project_id, resource_name, hour, sum(allocated_nanos) AS a
        FROM run_allocation
        GROUP BY project_id, resource_name, hour
    ) AS s USING (project_id, resource_name, hour)
    WHERE p.effective_nanos >= 0 AND s.a > p.effective_nanos
)
SELECT shares.n AS shares, over.n AS over
FROM shares, over
WHERE shares.n > 0 OR over.n > 0
