-- @query: One billing account of an invoice month: the books' split of its effective cost
--   (USD, cost_explorer_rows, whose parts add up to each billing row) into the cost of runs and
--   each kind of idle (unallocated idle, unused commitment, unused reservation) and shared cost
--   (every other part, so that the split always adds up to the account's effective cost).
-- @param invoice_month: the invoice month, YYYYMM.
WITH month_rows AS (
    SELECT row_id, billing_account_id FROM billing_line_items WHERE invoice_month = $invoice_month
)
SELECT m.billing_account_id,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'run'), 0) AS run_cost,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unallocated_idle'), 0)
           AS unallocated_idle_cost,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unused_commitment'), 0)
           AS unused_commitment_cost,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unused_reservation'), 0)
           AS unused_reservation_cost,
       coalesce(sum(c.effective_cost) FILTER (
           WHERE c.cost_part NOT IN ('run', 'unallocated_idle', 'unused_commitment', 'unused_reservation')
       ), 0) AS shared_cost,
       coalesce(sum(c.effective_cost), 0) AS effective_cost
FROM month_rows AS m
JOIN cost_explorer_rows AS c USING (row_id)
GROUP BY ALL
ORDER BY effective_cost DESC, billing_account_id
