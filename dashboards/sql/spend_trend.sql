-- Spend per UTC day and category (team and project filters apply). Params: filters.
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
    s.day,
    s.category,
    CAST(sum(s.effective_cost) AS DOUBLE) AS effective_usd
FROM spend_daily AS s, p
WHERE s.day BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, s.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, s.project_id))
GROUP BY s.day, s.category
ORDER BY s.day, s.category
