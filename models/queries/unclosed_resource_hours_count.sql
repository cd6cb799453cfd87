-- @query: One row: how many resource-hours' allocated + unallocated idle cost is not their cost.
SELECT count(*) AS n
FROM idle_capacity
WHERE allocated_cost + unallocated_idle_cost <> effective_cost
