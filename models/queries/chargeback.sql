-- @query: One run-owner team and calendar month (UTC) under the configured shared-cost policy
--   (team_chargeback), for the months that overlap [$start_day, $end_day] (null: no bound):
--   the cost of its runs (by the month of the hour the cost was spread to), its parts of the
--   month's unallocated idle, unused commitment, unused reservation and shared cost, its
--   chargeback (the sum of them all), its chargeback in the month before (null: not charged
--   then), and the month's own totals of what was spread. A team charged only the month before
--   appears with zeros. Highest chargeback first. The one query of these figures: the
--   Chargeback page and the month report run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
WITH charged AS (
    SELECT c.*, CAST(c.month + INTERVAL 1 MONTH AS DATE) AS next_month
    FROM team_chargeback AS c
),
months AS (
    SELECT month FROM charged
    UNION
    SELECT next_month FROM charged
),
chosen AS (
    SELECT month
    FROM months
    WHERE (CAST($start_day AS DATE) IS NULL
           OR month >= CAST(date_trunc('month', CAST($start_day AS DATE)) AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR month <= CAST($end_day AS DATE))
      AND month <= (SELECT max(c.month) FROM charged AS c)
),
this_month AS (
    SELECT c.* FROM charged AS c WHERE c.month IN (SELECT month FROM chosen)
),
month_before AS (
    SELECT c.next_month AS month, c.team, c.total_cost
    FROM charged AS c
    WHERE c.next_month IN (SELECT month FROM chosen)
),
policies AS (
    SELECT month, any_value(policy) AS policy FROM this_month GROUP BY month
)
SELECT
    coalesce(t.month, b.month) AS month,
    coalesce(t.team, b.team) AS team,
    coalesce(t.policy, p.policy) AS policy,
    coalesce(t.allocated_cost, 0) AS run_cost,
    coalesce(t.idle_cost_shared, 0) AS idle_cost_shared,
    coalesce(t.unused_commitment_shared, 0) AS unused_commitment_shared,
    coalesce(t.unused_reservation_shared, 0) AS unused_reservation_shared,
    coalesce(t.shared_cost, 0) AS shared_cost,
    coalesce(t.total_cost, 0) AS chargeback,
    b.total_cost AS previous_chargeback,
    t.month_unallocated_idle_cost,
    t.month_unused_commitment_cost,
    t.month_unused_reservation_cost,
    t.month_shared_cost
FROM this_month AS t
FULL OUTER JOIN month_before AS b ON b.month = t.month AND b.team = t.team
LEFT JOIN policies AS p ON p.month = coalesce(t.month, b.month)
ORDER BY month, chargeback DESC, team
