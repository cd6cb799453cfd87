-- @query: One billing account and currency of an invoice month: what the invoice shows, in the
--   billing currency and in USD (spend_monthly): billed cost, credits and the invoiced cost
--   (billed + credits; a FOCUS row's BilledCost, before the amortisation of commitments that
--   the effective cost includes), highest invoiced cost first.
-- @param invoice_month: the invoice month, YYYYMM.
SELECT billing_account_id, currency,
       sum(billed_cost_in_currency) AS billed_cost_in_currency,
       sum(credits_in_currency) AS credits_in_currency,
       sum(effective_cost_in_currency) AS effective_cost_in_currency,
       sum(billed_cost) AS billed_cost,
       sum(credits_total) AS credits_total,
       sum(effective_cost) AS invoiced_cost
FROM spend_monthly
WHERE invoice_month = $invoice_month
GROUP BY ALL
ORDER BY invoiced_cost DESC, billing_account_id, currency
