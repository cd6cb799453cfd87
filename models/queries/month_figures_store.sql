-- @query: Stores the figures some calendar months are watched by, as the marts hold them now
--   (bookkeeping.month_figures): each team's chargeback (team_chargeback.total_cost, named as the
--   month report's totals name it) and the month's effective cost (spend_daily). Reads only the
--   months given (the range keeps a day-partitioned read to its partitions).
-- @param months: the months' first days (DATE[]).
-- @param first: the first of them.
-- @param end: the first day after the last of them.
INSERT INTO bookkeeping.month_figures (month, figure, value, seen_at)
SELECT month, figure, value, CAST(current_timestamp AS TIMESTAMP)
FROM (
    SELECT month, 'chargeback ' || team || ' total_cost' AS figure, total_cost AS value
    FROM team_chargeback
    WHERE month >= $first AND month < $end AND list_contains(CAST($months AS DATE[]), month)
    UNION ALL
    SELECT CAST(date_trunc('month', day) AS DATE) AS month, 'effective_cost' AS figure,
           sum(effective_cost) AS value
    FROM spend_daily
    WHERE day >= $first AND day < $end
      AND list_contains(CAST($months AS DATE[]), CAST(date_trunc('month', day) AS DATE))
    GROUP BY 1, 2
) AS t
