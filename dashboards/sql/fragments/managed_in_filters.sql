-- @query: Managed inference (managed_inference_daily) in the filters: UTC days in the range, of
--   a chosen team (gateway rows; provider exports carry no team) and workload class. Projects
--   and accelerator types are the cloud's, not the providers': those filters do not apply.
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT m.*
FROM managed_inference_daily AS m
CROSS JOIN filter_values AS f
WHERE m.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)  -- parameters: BigQuery prunes a partitioned mart by them
  AND (array_length(f.teams) = 0 OR list_contains(f.teams, m.team))
  AND (array_length(f.classes) = 0 OR list_contains(f.classes, m.workload_class))
