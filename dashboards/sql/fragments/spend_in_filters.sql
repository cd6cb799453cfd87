-- @query: Spend (spend_daily) in the filters: the chosen providers, teams and projects, UTC
--   days in the range.
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT s.*
FROM spend_in_scope AS s
CROSS JOIN filter_values AS f
WHERE s.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)  -- parameters: BigQuery prunes a partitioned mart by them
