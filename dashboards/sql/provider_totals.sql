-- @query: Spend, runs and accelerator idle per provider in the filters: spend_daily (provider,
--   team and project filters apply), cost_per_run (every filter) and idle_capacity_daily
--   (provider, project and accelerator filters). A provider with spend but no runs or no
--   accelerator capacity has null figures there.
WITH spend AS (
    SELECT
        s.provider,
        sum(s.billed_cost) AS billed_usd,
        sum(s.credits_total) AS credits_usd,
        sum(s.effective_cost) AS effective_usd
    FROM spend_in_filters AS s
    GROUP BY s.provider
),
runs AS (
    SELECT
        r.provider,
        count(*) AS runs,
        sum(r.effective_cost) AS run_cost_usd
    FROM runs_in_filters AS r
    WHERE r.provider IS NOT NULL
    GROUP BY r.provider
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
    coalesce(s.provider, r.provider, i.provider) AS provider,
    s.billed_usd,
    s.credits_usd,
    s.effective_usd,
    r.runs,
    r.run_cost_usd,
    i.paid_hours,
    i.accelerator_usd,
    i.unallocated_idle_usd
FROM spend AS s
FULL JOIN runs AS r ON r.provider = s.provider
FULL JOIN idle AS i ON i.provider = coalesce(s.provider, r.provider)
ORDER BY s.effective_usd DESC NULLS LAST, provider
