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
WITH spend AS (
    SELECT
        invoice_month,
        provider,
        billing_account_id,
        currency,
        project_id,
        coalesce(row_team(labels), '__unallocated__') AS team,
        CAST(cost AS DECIMAL(38, 12)) AS cost,
        CAST(credits_total AS DECIMAL(38, 12)) AS credits_total,
        CAST(cost_usd AS DECIMAL(38, 12)) AS cost_usd,
        CAST(credits_total_usd AS DECIMAL(38, 12)) AS credits_total_usd
    FROM billing_line_items
    UNION ALL
    -- FOCUS: credits are rows of their own (ChargeCategory Credit, negative BilledCost); USD only.
    SELECT
        strftime(billing_period_start, '%Y%m'),
        provider_name,
        billing_account_id,
        billing_currency,
        sub_account_id,
        coalesce(nullif(trim(json_extract_string(tags, '$.team')), ''), '__unallocated__'),
        CASE WHEN charge_category = 'Credit' THEN 0 ELSE billed_cost END,
        CASE WHEN charge_category = 'Credit' THEN billed_cost ELSE 0 END,
        CASE WHEN charge_category = 'Credit' THEN 0 ELSE billed_cost END,
        CASE WHEN charge_category = 'Credit' THEN billed_cost ELSE 0 END
    FROM focus_line_items
    WHERE billing_currency = 'USD' AND billing_period_start IS NOT NULL
)
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
FROM spend
GROUP BY ALL
ORDER BY invoice_month, provider, billing_account_id, project_id, team
