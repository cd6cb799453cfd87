-- Spend and accelerator idle per provider in the filters: spend_daily (provider, team and
-- project filters apply) and idle_capacity_daily (provider, project and accelerator filters).
-- A provider with spend but no accelerator capacity has null idle figures. Params: the filters.
WITH spend AS (
    SELECT
        s.provider,
        sum(s.billed_cost) AS billed_usd,
        sum(s.credits_total) AS credits_usd,
        sum(s.effective_cost) AS effective_usd
    FROM spend_in_filters AS s
    GROUP BY s.provider
),
idle AS (
    SELECT
        i.provider,
        sum(i.paid_accelerator_hours) AS paid_hours,
        sum(i.effective_cost) AS accelerator_usd,
        sum(i.unallocated_idle_cost) AS unallocated_idle_usd
    FROM idle_days_in_filters AS i
    GROUP BY i.provider
)
SELECT
    coalesce(s.provider, i.provider) AS provider,
    s.billed_usd,
    s.credits_usd,
    s.effective_usd,
    i.paid_hours,
    i.accelerator_usd,
    i.unallocated_idle_usd
FROM spend AS s
FULL JOIN idle AS i ON i.provider = s.provider
ORDER BY s.effective_usd DESC NULLS LAST, provider
