-- Runs with an MFU figure (needs telemetry and model FLOPs). Params: filters.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators
)
SELECT r.run_id, r.accelerator_type, r.workload_class, r.mfu_spec_pct, r.mfu_measured_pct
FROM cost_per_run AS r, p
WHERE CAST(coalesce(r.started_at, r.submitted_at) AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, r.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, r.project_id))
  AND (len(p.classes) = 0 OR list_contains(p.classes, r.workload_class))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, r.accelerator_type))
  AND r.mfu_spec_pct IS NOT NULL
ORDER BY r.run_id
