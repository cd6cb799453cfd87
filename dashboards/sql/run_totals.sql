-- @query: Runs in the filters: counts, cost, hours, tokens, and how much telemetry they carry.
SELECT
    count(*) AS runs,
    count(*) FILTER (WHERE r.status = 'succeeded') AS succeeded,
    count(*) FILTER (WHERE r.status IN ('failed', 'cancelled')) AS failed,
    coalesce(sum(r.effective_cost), 0) AS effective_usd,
    coalesce(sum(r.accelerator_hours), 0) AS accelerator_hours,
    coalesce(sum(r.tokens_in), 0) + coalesce(sum(r.tokens_out), 0) AS tokens,
    count(r.mean_utilisation_pct) AS runs_with_telemetry,
    sum(r.mean_utilisation_pct * r.accelerator_hours) / nullif(sum(r.accelerator_hours) FILTER (WHERE r.mean_utilisation_pct IS NOT NULL), 0)
        AS mean_utilisation_pct,
    sum(r.energy_kwh) AS energy_kwh,
    median(r.mfu_spec_pct) AS median_mfu_spec_pct
FROM runs_in_filters AS r
