-- @table: One team and calendar month (UTC): the cost of its runs, and the month's unallocated accelerator idle either shown apart or shared to teams in proportion to their allocated cost. USD.
-- @depends: run_allocation, run_direct_costs, jobs, idle_capacity
-- @col month: First day of the UTC month.
-- @col team: Team (runs without a team: __unallocated__).
-- @col allocated_cost: Cost allocated to the team's runs in the month (resource shares by hour, plus labelled rows by run start).
-- @col share_of_allocated: The team's fraction of the month's allocated cost.
-- @col idle_cost_shared: The month's unallocated idle cost x share_of_allocated (USD).
-- @col cost_with_idle_shared: allocated_cost + idle_cost_shared (USD).
-- @col month_unallocated_idle_cost: The month's whole unallocated idle cost, shown apart (the same on every row of the month).
WITH run_month AS (
    SELECT
        date_trunc('month', a.hour) AS month,
        coalesce(j.team, '__unallocated__') AS team,
        a.allocated_nanos AS nanos
    FROM run_allocation AS a
    JOIN jobs AS j USING (run_id)
    UNION ALL
    SELECT
        date_trunc('month', coalesce(j.started_at, j.submitted_at)) AS month,
        coalesce(j.team, '__unallocated__') AS team,
        d.direct_nanos AS nanos
    FROM run_direct_costs AS d
    JOIN jobs AS j USING (run_id)
),
team_month AS (
    SELECT CAST(month AS DATE) AS month, team, sum(nanos) AS nanos
    FROM run_month
    GROUP BY ALL
),
idle_month AS (
    SELECT CAST(date_trunc('month', hour) AS DATE) AS month, to_nanos(sum(unallocated_idle_cost)) AS idle_nanos
    FROM idle_capacity
    GROUP BY ALL
),
totals AS (
    SELECT month, sum(nanos) AS month_nanos FROM team_month GROUP BY month
)
SELECT
    t.month,
    t.team,
    from_nanos(t.nanos) AS allocated_cost,
    CASE WHEN s.month_nanos <> 0 THEN CAST(t.nanos AS DOUBLE) / CAST(s.month_nanos AS DOUBLE) END AS share_of_allocated,
    from_nanos(CASE WHEN s.month_nanos <> 0 THEN floor_div(coalesce(i.idle_nanos, 0) * t.nanos, s.month_nanos) ELSE 0 END) AS idle_cost_shared,
    from_nanos(t.nanos + CASE WHEN s.month_nanos <> 0 THEN floor_div(coalesce(i.idle_nanos, 0) * t.nanos, s.month_nanos) ELSE 0 END) AS cost_with_idle_shared,
    from_nanos(coalesce(i.idle_nanos, 0)) AS month_unallocated_idle_cost
FROM team_month AS t
JOIN totals AS s USING (month)
LEFT JOIN idle_month AS i USING (month)
ORDER BY t.month, t.team
