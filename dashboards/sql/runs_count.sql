-- How many runs match the filters and search text, and what they cost. Params: filters, search text.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators,
        CAST(? AS VARCHAR) AS needle
)
SELECT count(*) AS runs, CAST(coalesce(sum(r.effective_cost), 0) AS DOUBLE) AS effective_usd
FROM cost_per_run AS r, p
WHERE CAST(coalesce(r.started_at, r.submitted_at) AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, r.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, r.project_id))
  AND (len(p.classes) = 0 OR list_contains(p.classes, r.workload_class))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, r.accelerator_type))
  AND (p.needle = '' OR strpos(lower(r.run_id), p.needle) > 0
       OR strpos(lower(coalesce(r.job_id, '')), p.needle) > 0
       OR strpos(lower(coalesce(r.model_name, '')), p.needle) > 0
       OR strpos(lower(coalesce(r.experiment_id, '')), p.needle) > 0)
