-- @table: Spend per invoice month (what the invoice shows; finance reconciles against it), billing account, currency, project and team: in the billed currency and in USD.
-- @col invoice_month: Invoice month, YYYYMM (FOCUS: the month of BillingPeriodStart).
-- @col provider: Cloud provider: gcp for the Google export's rows; FOCUS rows' ProviderName as written.
-- @col billing_account_id: Billing account.
-- @col currency: Currency the account is billed in.
-- @col project_id: Project.
-- @col team: Team label (else GKE's k8s-label/team or k8s-namespace: row_team in models/functions.sql); __unallocated__ when missing.
-- @col billed_cost_in_currency: Billed cost in the account's currency.
-- @col credits_in_currency: Credits in the account's currency.
-- @col effective_cost_in_currency: Billed + credits in the account's currency: the invoice's figure (FOCUS: the sum of BilledCost).
-- @col billed_cost: Billed cost (USD).
-- @col credits_total: Credits (USD).
-- @col effective_cost: Billed + credits (USD).

-- Summed from its day parts (spend_invoice_daily): an invoice month holds late rows of earlier
-- usage months, so it is not a window of days; its days are.
SELECT
    invoice_month,
    provider,
    billing_account_id,
    currency,
    project_id,
    team,
    sum(cost) AS billed_cost_in_currency,
    sum(credits_total) AS credits_in_currency,
    sum(cost + credits_total) AS effective_cost_in_currency,
    sum(cost_usd) AS billed_cost,
    sum(credits_total_usd) AS credits_total,
    sum(cost_usd + credits_total_usd) AS effective_cost
FROM spend_invoice_daily
GROUP BY ALL
ORDER BY invoice_month, provider, billing_account_id, project_id, team
