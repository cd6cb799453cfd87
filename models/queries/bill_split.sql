-- @query: The books' split of the bill (cost_explorer_rows, whose parts add up to every billing
--   row, Google's and every FOCUS provider's) over the UTC days of the hours a part covers in
--   [$start_day, $end_day] (null: no bound), or over the billing rows of one invoice month
--   ($invoice_month: a GCP row's invoice_month, a FOCUS row's month of BillingPeriodStart):
--   one row ($group_by null), or one per provider, billing account, calendar month (of the
--   hour) or provider and month. The cost of runs, each kind of idle (unallocated idle, unused
--   commitment, unused reservation), shared cost (every other part, so that the split always
--   adds up) and the effective cost they add up to (USD, each row's parts to the nano-dollar).
--   The one query of these figures: the CLI, the Chargeback page and the month report run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param invoice_month: an invoice month, YYYYMM; null for every billing row.
-- @param group_by: provider, billing_account_id, month or provider_month; null for one row.
-- The groups are chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
WITH invoiced AS (
    SELECT row_id FROM billing_line_items WHERE invoice_month = CAST($invoice_month AS VARCHAR)
    UNION ALL
    SELECT line_item_id FROM focus_line_items
    WHERE strftime(billing_period_start, '%Y%m') = CAST($invoice_month AS VARCHAR)
),
chosen AS (
    SELECT
        CASE WHEN $group_by IN ('provider', 'provider_month') THEN c.provider END AS provider,
        CASE WHEN $group_by = 'billing_account_id' THEN c.billing_account_id END AS billing_account_id,
        CASE WHEN $group_by IN ('month', 'provider_month')
             THEN CAST(date_trunc('month', c.day) AS DATE) END AS month,
        c.cost_part,
        c.effective_cost
    FROM cost_explorer_rows AS c
    WHERE (CAST($start_day AS DATE) IS NULL OR c.day >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR c.day <= CAST($end_day AS DATE))
      AND (CAST($invoice_month AS VARCHAR) IS NULL OR c.row_id IN (SELECT row_id FROM invoiced))
)
SELECT
    provider,
    billing_account_id,
    month,
    coalesce(sum(effective_cost) FILTER (WHERE cost_part = 'run'), 0) AS run_cost,
    coalesce(sum(effective_cost) FILTER (WHERE cost_part = 'unallocated_idle'), 0) AS unallocated_idle_cost,
    coalesce(sum(effective_cost) FILTER (WHERE cost_part = 'unused_commitment'), 0) AS unused_commitment_cost,
    coalesce(sum(effective_cost) FILTER (WHERE cost_part = 'unused_reservation'), 0) AS unused_reservation_cost,
    coalesce(sum(effective_cost) FILTER (
        WHERE cost_part NOT IN ('run', 'unallocated_idle', 'unused_commitment', 'unused_reservation')
    ), 0) AS shared_cost,
    coalesce(sum(effective_cost), 0) AS effective_cost
FROM chosen
GROUP BY provider, billing_account_id, month
ORDER BY month, effective_cost DESC, provider, billing_account_id
