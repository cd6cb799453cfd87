-- @query: One row when some resource-hours' allocated + unallocated idle cost is not their
--   cost: how many.
-- @row: {n} resource-hours do not close
SELECT count(*) AS n
FROM idle_capacity
WHERE allocated_cost + unallocated_idle_cost <> effective_cost
HAVING count(*) > 0
