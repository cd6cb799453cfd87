-- @query: One billing account of an invoice month: the books' split of its effective cost
--   (USD) into the cost of runs, unallocated idle and shared cost (cost_explorer_rows, whose
--   parts add up to each billing row), and the allocated idle cost within the runs' cost
--   (idle_capacity's, spread over the account's accelerator resource rows by their cost).
-- @param invoice_month: the invoice month, YYYYMM.
WITH month_rows AS (
    SELECT row_id, billing_account_id FROM billing_line_items WHERE invoice_month = $invoice_month
)
SELECT m.billing_account_id,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'run'), 0) AS run_cost,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'unallocated_idle'), 0)
           AS unallocated_idle_cost,
       coalesce(sum(c.effective_cost) FILTER (WHERE c.cost_part = 'shared'), 0) AS shared_cost,
       coalesce(sum(c.effective_cost), 0) AS effective_cost
FROM month_rows AS m
JOIN cost_explorer_rows AS c USING (row_id)
GROUP BY ALL
ORDER BY effective_cost DESC, billing_account_id
