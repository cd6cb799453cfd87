-- Spend in the date range (spend_daily: team and project filters apply). Params: filters.
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
    CAST(coalesce(sum(s.billed_cost), 0) AS DOUBLE) AS billed_usd,
    CAST(coalesce(sum(s.credits_total), 0) AS DOUBLE) AS credits_usd,
    CAST(coalesce(sum(s.effective_cost), 0) AS DOUBLE) AS effective_usd,
    count(DISTINCT s.day) AS days
FROM spend_daily AS s, p
WHERE s.day BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, s.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, s.project_id))
