-- @table: One team and calendar month (UTC) under the configured shared-cost policy: the cost of its runs (allocated, commitment fee shares included), its part of the month's unallocated accelerator idle, of its unused commitment and unused reservation (idle of their own kinds, spread like idle and shown apart), and of the shared cost (everything else of the bill no run was allocated: storage, network, tax, hosts without accelerators, ...), and the total it is charged. sum(total_cost) over all rows = sum(effective_cost) of spend_daily, to the nano-dollar. Integer nano-USD inside; a split's remainder goes deterministically (cumulative floor over teams in name order). USD. See docs/glossary.md.
-- @grain month (onward settings_history): month
-- @check chargeback_sums_to_the_bill (error, blocking): Chargeback sums to the bill: sum(total_cost) = sum(spend_daily.effective_cost).
-- @col month: First day of the UTC month (of the hour the cost was spread to).
-- @col team: Run-owner team (the jobs' team; runs without a team: __unallocated__). Under the policy none, or when nothing can carry a spread, the month's unspread idle, unused commitment, unused reservation and shared cost stand on rows __idle__, __unused_commitment__, __unused_reservation__ and __shared__.
-- @col policy: The shared-cost policy the month was built with (the one in force at its end, settings_history): none, proportional (to allocated cost), even, or fixed (the key in force then).
-- @col allocated_cost: Cost allocated to the team's runs in the month (resource shares by hour, plus rows labelled with a run and their commitment fee shares by their hour).
-- @col share_of_allocated: The team's fraction of the month's allocated cost.
-- @col idle_cost_shared: The team's part of the month's unallocated idle cost under the policy (USD).
-- @col unused_commitment_shared: The team's part of the month's unused commitment under the policy (USD).
-- @col unused_reservation_shared: The team's part of the month's unused reservation under the policy (USD).
-- @col shared_cost: The team's part of the month's shared cost under the policy (USD).
-- @col cost_with_idle_shared: allocated_cost + idle_cost_shared + unused_commitment_shared + unused_reservation_shared (USD).
-- @col total_cost: allocated_cost + idle_cost_shared + unused_commitment_shared + unused_reservation_shared + shared_cost: what the team is charged (USD).
-- @col month_unallocated_idle_cost: The month's whole unallocated idle cost, shown apart (the same on every row of the month).
-- @col month_unused_commitment_cost: The month's whole unused commitment (commitment_hourly.unused_nanos), shown apart (the same on every row of the month).
-- @col month_unused_reservation_cost: The month's whole unused reservation (billing rows marked unused reservation), shown apart (the same on every row of the month).
-- @col month_shared_cost: The month's whole shared cost (effective cost - allocated - unallocated idle - unused commitment - unused reservation), shown apart (the same on every row of the month).
WITH month_settings AS (
    -- Each chargeback setting in force at the end of each month of the bill: the latest whose
    -- first day (settings_history; null: since the start) is in the month or before it.
    SELECT b.month, h.key, h.value
    FROM (SELECT DISTINCT CAST(date_trunc('month', hour) AS DATE) AS month FROM billing_hourly) AS b
    JOIN settings_history AS h
        ON coalesce(h.effective_from, DATE '0001-01-01') < CAST(b.month + INTERVAL 1 MONTH AS DATE)
    WHERE h.key = 'chargeback_policy' OR starts_with(h.key, 'chargeback_key:')
    QUALIFY row_number() OVER (
        PARTITION BY b.month, h.key ORDER BY coalesce(h.effective_from, DATE '0001-01-01') DESC
    ) = 1
),
settings AS (
    SELECT
        b.month,
        coalesce(max(CASE WHEN s.key = 'chargeback_policy' THEN s.value END), 'proportional') AS policy
    FROM (SELECT DISTINCT CAST(date_trunc('month', hour) AS DATE) AS month FROM billing_hourly) AS b
    LEFT JOIN month_settings AS s USING (month)
    GROUP BY b.month
),
fixed_key AS (
    SELECT month, substr(key, length('chargeback_key:') + 1) AS team, CAST(value AS HUGEINT) AS weight
    FROM month_settings
    WHERE starts_with(key, 'chargeback_key:') AND value IS NOT NULL
),
run_month AS (
    SELECT
        date_trunc('month', a.hour) AS month,
        coalesce(j.team, '__unallocated__') AS team,
        a.allocated_nanos AS nanos
    FROM run_allocation AS a
    JOIN jobs AS j USING (run_id)
    UNION ALL
    SELECT
        date_trunc('month', b.hour) AS month,
        coalesce(j.team, '__unallocated__') AS team,
        b.effective_nanos AS nanos
    FROM billing_hourly AS b
    JOIN jobs AS j ON j.run_id = b.direct_run_id
    UNION ALL
    -- The commitment fee shares of rows labelled with a run go to that run (run_direct_costs).
    SELECT
        date_trunc('month', c.hour) AS month,
        coalesce(j.team, '__unallocated__') AS team,
        c.fee_share_nanos AS nanos
    FROM commitment_allocation AS c
    JOIN jobs AS j ON j.run_id = c.direct_run_id
),
team_month AS (
    SELECT CAST(month AS DATE) AS month, team, sum(nanos) AS nanos
    FROM run_month
    GROUP BY ALL
),
bill_month AS (
    SELECT CAST(date_trunc('month', hour) AS DATE) AS month, sum(effective_nanos) AS effective_nanos
    FROM billing_hourly
    GROUP BY ALL
),
idle_month AS (
    SELECT CAST(date_trunc('month', hour) AS DATE) AS month, sum(to_nanos(unallocated_idle_cost)) AS idle_nanos
    FROM idle_capacity
    GROUP BY ALL
),
unused_commitment_month AS (
    SELECT CAST(date_trunc('month', hour) AS DATE) AS month, sum(unused_nanos) AS nanos
    FROM commitment_hourly
    GROUP BY ALL
),
unused_reservation_month AS (
    SELECT CAST(date_trunc('month', hour) AS DATE) AS month, sum(effective_nanos) AS nanos
    FROM billing_hourly
    WHERE row_kind = 'unused_reservation'
    GROUP BY ALL
),
allocated_month AS (
    SELECT month, sum(nanos) AS allocated_nanos FROM team_month GROUP BY month
),
months AS (
    -- Whatever of the month's bill no run was allocated is spread: the accelerator idle
    -- idle_capacity names, unused commitment and unused reservation (idle of their own kinds,
    -- never shared cost), and the rest (shared). New kinds of unallocated cost fall in here.
    SELECT
        b.month,
        coalesce(a.allocated_nanos, 0) AS allocated_nanos,
        coalesce(i.idle_nanos, 0) AS idle_nanos,
        coalesce(uc.nanos, 0) AS unused_commitment_nanos,
        coalesce(ur.nanos, 0) AS unused_reservation_nanos,
        b.effective_nanos - coalesce(a.allocated_nanos, 0) - coalesce(i.idle_nanos, 0)
            - coalesce(uc.nanos, 0) - coalesce(ur.nanos, 0) AS shared_nanos
    FROM bill_month AS b
    LEFT JOIN allocated_month AS a USING (month)
    LEFT JOIN idle_month AS i USING (month)
    LEFT JOIN unused_commitment_month AS uc USING (month)
    LEFT JOIN unused_reservation_month AS ur USING (month)
),
candidates AS (
    SELECT month, team, nanos AS allocated_nanos FROM team_month
    UNION ALL
    SELECT m.month, k.team, CAST(0 AS HUGEINT)
    FROM months AS m
    JOIN settings AS s USING (month)
    JOIN fixed_key AS k USING (month)
    WHERE s.policy = 'fixed'
),
weighted AS (
    SELECT
        c.month,
        c.team,
        sum(c.allocated_nanos) AS allocated_nanos,
        CAST(CASE s.policy
            WHEN 'proportional' THEN sum(c.allocated_nanos)
            WHEN 'even' THEN 1
            WHEN 'fixed' THEN coalesce(max(k.weight), 0)
            ELSE 0
        END AS HUGEINT) AS weight
    FROM candidates AS c
    JOIN settings AS s USING (month)
    LEFT JOIN fixed_key AS k ON k.month = c.month AND k.team = c.team
    GROUP BY c.month, c.team, s.policy
),
cumulative AS (
    SELECT
        *,
        sum(weight) OVER (PARTITION BY month ORDER BY team ROWS UNBOUNDED PRECEDING) AS upto_weight,
        sum(weight) OVER (PARTITION BY month) AS month_weight
    FROM weighted
),
team_rows AS (
    SELECT
        c.month,
        c.team,
        c.allocated_nanos,
        CASE WHEN c.month_weight <> 0
             THEN floor_div(m.idle_nanos * c.upto_weight, c.month_weight)
                  - floor_div(m.idle_nanos * (c.upto_weight - c.weight), c.month_weight)
             ELSE 0 END AS idle_part,
        CASE WHEN c.month_weight <> 0
             THEN floor_div(m.unused_commitment_nanos * c.upto_weight, c.month_weight)
                  - floor_div(m.unused_commitment_nanos * (c.upto_weight - c.weight), c.month_weight)
             ELSE 0 END AS unused_commitment_part,
        CASE WHEN c.month_weight <> 0
             THEN floor_div(m.unused_reservation_nanos * c.upto_weight, c.month_weight)
                  - floor_div(m.unused_reservation_nanos * (c.upto_weight - c.weight), c.month_weight)
             ELSE 0 END AS unused_reservation_part,
        CASE WHEN c.month_weight <> 0
             THEN floor_div(m.shared_nanos * c.upto_weight, c.month_weight)
                  - floor_div(m.shared_nanos * (c.upto_weight - c.weight), c.month_weight)
             ELSE 0 END AS shared_part
    FROM cumulative AS c
    JOIN months AS m USING (month)
),
unspread AS (
    -- A month nothing can carry (policy none, or zero total weight) keeps its idle, unused
    -- commitment, unused reservation and shared cost on rows of their own, so the month still
    -- sums to its bill.
    SELECT m.month, u.team, CAST(0 AS HUGEINT) AS allocated_nanos,
           CASE WHEN u.team = '__idle__' THEN m.idle_nanos ELSE 0 END AS idle_part,
           CASE WHEN u.team = '__unused_commitment__' THEN m.unused_commitment_nanos ELSE 0 END AS unused_commitment_part,
           CASE WHEN u.team = '__unused_reservation__' THEN m.unused_reservation_nanos ELSE 0 END AS unused_reservation_part,
           CASE WHEN u.team = '__shared__' THEN m.shared_nanos ELSE 0 END AS shared_part
    FROM months AS m
    CROSS JOIN (VALUES ('__idle__'), ('__unused_commitment__'), ('__unused_reservation__'), ('__shared__')) AS u(team)
    WHERE coalesce((SELECT sum(weight) FROM weighted AS w WHERE w.month = m.month), 0) = 0
      AND CASE u.team
              WHEN '__idle__' THEN m.idle_nanos
              WHEN '__unused_commitment__' THEN m.unused_commitment_nanos
              WHEN '__unused_reservation__' THEN m.unused_reservation_nanos
              ELSE m.shared_nanos
          END <> 0
),
all_rows AS (
    SELECT * FROM team_rows
    UNION ALL
    SELECT * FROM unspread
)
SELECT
    r.month,
    r.team,
    s.policy,
    from_nanos(r.allocated_nanos) AS allocated_cost,
    CASE WHEN m.allocated_nanos <> 0 THEN CAST(r.allocated_nanos AS DOUBLE) / CAST(m.allocated_nanos AS DOUBLE) END AS share_of_allocated,
    from_nanos(r.idle_part) AS idle_cost_shared,
    from_nanos(r.unused_commitment_part) AS unused_commitment_shared,
    from_nanos(r.unused_reservation_part) AS unused_reservation_shared,
    from_nanos(r.shared_part) AS shared_cost,
    from_nanos(r.allocated_nanos + r.idle_part + r.unused_commitment_part + r.unused_reservation_part) AS cost_with_idle_shared,
    from_nanos(r.allocated_nanos + r.idle_part + r.unused_commitment_part + r.unused_reservation_part + r.shared_part) AS total_cost,
    from_nanos(m.idle_nanos) AS month_unallocated_idle_cost,
    from_nanos(m.unused_commitment_nanos) AS month_unused_commitment_cost,
    from_nanos(m.unused_reservation_nanos) AS month_unused_reservation_cost,
    from_nanos(m.shared_nanos) AS month_shared_cost
FROM all_rows AS r
JOIN months AS m USING (month)
JOIN settings AS s USING (month)
ORDER BY r.month, r.team
