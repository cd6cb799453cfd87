-- @table: Spend per UTC usage day and invoice month, provider, billing account, currency, project and team, in the billed currency and in USD: spend_monthly's day parts, so that a month is summed from its days, never from every billing row.
-- @grain day: usage_day
-- @col usage_day: UTC day of the usage (FOCUS: the day of ChargePeriodStart).
-- @col invoice_month: Invoice month, YYYYMM (FOCUS: the month of BillingPeriodStart).
-- @col provider: Cloud provider: gcp for the Google export's rows; FOCUS rows' ProviderName as written.
-- @col billing_account_id: Billing account.
-- @col currency: Currency the account is billed in.
-- @col project_id: Project.
-- @col team: Team label (else GKE's k8s-label/team or k8s-namespace: row_team in models/functions.sql); __unallocated__ when missing.
-- @col cost: Billed cost in the account's currency.
-- @col credits_total: Credits in the account's currency.
-- @col cost_usd: Billed cost (USD).
-- @col credits_total_usd: Credits (USD).
WITH spend AS (
    SELECT
        usage_day,
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
        charge_day,
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
    usage_day,
    invoice_month,
    provider,
    billing_account_id,
    currency,
    project_id,
    team,
    sum(cost) AS cost,
    sum(credits_total) AS credits_total,
    sum(cost_usd) AS cost_usd,
    sum(credits_total_usd) AS credits_total_usd
FROM spend
GROUP BY ALL
