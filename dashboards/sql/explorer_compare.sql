-- @query: Effective cost per group in this period [$start_day, $end_day] and in the one before
--   it [$prev_start, $prev_end], with the change and the change as a fraction of the period
--   before (one DOUBLE division of the exact sums; null when it spent nothing). With $dimension
--   null, one row: every group's together (the page's total).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param prev_end: the previous period's last UTC day (DATE, inclusive)
-- @param prev_start: the previous period's first UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
WITH totals AS (
    SELECT
        g.group_value,
        sum(CASE WHEN g.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE) THEN g.effective_cost ELSE 0 END) AS effective_cost,
        sum(CASE WHEN g.day BETWEEN CAST($prev_start AS DATE) AND CAST($prev_end AS DATE) THEN g.effective_cost ELSE 0 END) AS previous_effective_cost
    FROM explorer_grouped AS g
    WHERE g.day BETWEEN CAST($prev_start AS DATE) AND CAST($end_day AS DATE)
    GROUP BY g.group_value
)
SELECT
    group_value,
    effective_cost,
    previous_effective_cost,
    effective_cost - previous_effective_cost AS change,
    CAST(effective_cost - previous_effective_cost AS DOUBLE) / nullif(CAST(previous_effective_cost AS DOUBLE), 0) AS change_share
FROM totals
ORDER BY effective_cost DESC, group_value
