-- @query: Month to date at the range's last day, and the spend of the trailing 7 days with how
--   many days they are (fewer when the data starts later), team and project filters applied:
--   the run-rate projection to month end (views/overview.py divides, in Decimal).
SELECT
    coalesce(sum(CASE WHEN s.day >= date_trunc('month', f.end_day) THEN s.effective_cost END), 0)
        AS month_to_date_usd,
    coalesce(sum(CASE WHEN s.day > f.end_day - INTERVAL 7 DAY THEN s.effective_cost END), 0)
        AS trailing_usd,
    date_diff('day', greatest(min(s.day), max(f.end_day) - INTERVAL 6 DAY), max(f.end_day)) + 1
        AS trailing_days,
    CAST(date_diff('day', max(f.end_day), last_day(max(f.end_day))) AS BIGINT) AS days_left
FROM spend_in_scope AS s
CROSS JOIN filter_values AS f
WHERE s.day <= f.end_day
