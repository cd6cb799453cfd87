-- @query: One run-owner team's chargeback in a calendar month under the configured policy
--   (team_chargeback), with its total in the month before (null: not charged then), highest
--   total first. Teams charged only the month before appear with zeros. unused_capacity_shared:
--   the rest of the total (the team's part of unused commitments and reservations, where the
--   mart spreads them), so the parts always add up to the total.
-- @param month_start: first day of the month (DATE).
-- @param previous_start: first day of the month before (DATE).
WITH this_month AS (
    SELECT * FROM team_chargeback WHERE month = $month_start
),
last_month AS (
    SELECT team, total_cost FROM team_chargeback WHERE month = $previous_start
)
SELECT coalesce(t.team, l.team) AS team,
       coalesce(t.policy, (SELECT any_value(policy) FROM this_month)) AS policy,
       coalesce(t.allocated_cost, 0) AS allocated_cost,
       coalesce(t.idle_cost_shared, 0) AS idle_cost_shared,
       coalesce(t.shared_cost, 0) AS shared_cost,
       coalesce(t.total_cost - t.allocated_cost - t.idle_cost_shared - t.shared_cost, 0)
           AS unused_capacity_shared,
       coalesce(t.total_cost, 0) AS total_cost,
       l.total_cost AS previous_total_cost
FROM this_month AS t
FULL OUTER JOIN last_month AS l USING (team)
ORDER BY total_cost DESC, team
