-- @query: Effective cost per group in this period [$start_day, $end_day] and in the one before
--   it [$prev_start, $prev_end], with the change.
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param prev_end: the previous period's last UTC day (DATE, inclusive)
-- @param prev_start: the previous period's first UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
WITH totals AS (
    SELECT
        g.group_value,
        sum(CASE WHEN g.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE) THEN g.effective_cost ELSE 0 END) AS this_period_usd,
        sum(CASE WHEN g.day BETWEEN CAST($prev_start AS DATE) AND CAST($prev_end AS DATE) THEN g.effective_cost ELSE 0 END) AS previous_period_usd
    FROM explorer_grouped AS g
    WHERE g.day BETWEEN CAST($prev_start AS DATE) AND CAST($end_day AS DATE)
    GROUP BY g.group_value
)
SELECT
    group_value,
    this_period_usd,
    previous_period_usd,
    this_period_usd - previous_period_usd AS change_usd,
    CAST(this_period_usd - previous_period_usd AS DOUBLE) / nullif(CAST(previous_period_usd AS DOUBLE), 0) AS change_share
FROM totals
ORDER BY this_period_usd DESC, group_value
