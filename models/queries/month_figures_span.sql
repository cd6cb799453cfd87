-- @query: The first and last calendar month the watched marts hold (team_chargeback, spend_daily):
--   the months a run compares when they changed as a whole (a full build).
SELECT min(month) AS first_month, max(month) AS last_month
FROM (
    SELECT month FROM team_chargeback
    UNION ALL
    SELECT CAST(date_trunc('month', day) AS DATE) AS month FROM spend_daily
) AS t
