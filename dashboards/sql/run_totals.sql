-- Runs in the filters: counts, cost, hours, tokens, and how much telemetry they carry. Params: filters.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators
)
SELECT
    count(*) AS runs,
    count(*) FILTER (WHERE r.status = 'succeeded') AS succeeded,
    count(*) FILTER (WHERE r.status IN ('failed', 'cancelled')) AS failed,
    CAST(coalesce(sum(r.effective_cost), 0) AS DOUBLE) AS effective_usd,
    coalesce(sum(r.accelerator_hours), 0) AS accelerator_hours,
    coalesce(sum(r.tokens_in), 0) + coalesce(sum(r.tokens_out), 0) AS tokens,
    count(r.mean_utilisation_pct) AS runs_with_telemetry,
    sum(r.mean_utilisation_pct * r.accelerator_hours) / nullif(sum(r.accelerator_hours) FILTER (WHERE r.mean_utilisation_pct IS NOT NULL), 0)
        AS mean_utilisation_pct,
    sum(r.energy_kwh) AS energy_kwh,
    median(r.mfu_spec_pct) AS median_mfu_spec_pct
FROM cost_per_run AS r, p
WHERE CAST(coalesce(r.started_at, r.submitted_at) AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, r.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, r.project_id))
  AND (len(p.classes) = 0 OR list_contains(p.classes, r.workload_class))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, r.accelerator_type))
