-- Teams by the cost of their runs in the filters. Params: filters, row limit.
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
    coalesce(r.team, '__unallocated__') AS team,
    count(*) AS runs,
    sum(r.accelerator_hours) AS accelerator_hours,
    CAST(sum(r.effective_cost) AS DOUBLE) AS effective_usd
FROM cost_per_run AS r, p
WHERE CAST(coalesce(r.started_at, r.submitted_at) AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, r.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, r.project_id))
  AND (len(p.classes) = 0 OR list_contains(p.classes, r.workload_class))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, r.accelerator_type))
GROUP BY coalesce(r.team, '__unallocated__')
ORDER BY effective_usd DESC, team
LIMIT ?
