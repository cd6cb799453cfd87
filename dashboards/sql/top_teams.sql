-- @query: Teams by the cost of their runs in the filters.
-- @param row_limit: how many rows at most
SELECT
    coalesce(r.team, '__unallocated__') AS team,
    count(*) AS runs,
    sum(r.accelerator_hours) AS accelerator_hours,
    sum(r.effective_cost) AS effective_usd
FROM runs_in_filters AS r
GROUP BY coalesce(r.team, '__unallocated__')
ORDER BY effective_usd DESC, team
LIMIT $row_limit
