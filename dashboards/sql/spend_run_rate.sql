-- Month to date at the range's last day, and the daily mean over the trailing 7 days (fewer
-- when the data starts later), team and project filters applied: the run-rate projection to
-- month end. Params: filters.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators
),
scoped AS (
    SELECT s.day, s.effective_cost, p.end_day
    FROM spend_daily AS s, p
    WHERE s.day <= p.end_day
      AND (len(p.teams) = 0 OR list_contains(p.teams, s.team))
      AND (len(p.projects) = 0 OR list_contains(p.projects, s.project_id))
)
SELECT
    CAST(coalesce(sum(CASE WHEN day >= date_trunc('month', end_day) THEN effective_cost END), 0) AS DOUBLE)
        AS month_to_date_usd,
    CAST(coalesce(sum(CASE WHEN day > end_day - INTERVAL 7 DAY THEN effective_cost END), 0) AS DOUBLE)
        / (date_diff('day', greatest(min(day), max(end_day) - INTERVAL 6 DAY), max(end_day)) + 1)
        AS daily_rate_usd,
    CAST(date_diff('day', max(end_day), last_day(max(end_day))) AS BIGINT) AS days_left
FROM scoped
