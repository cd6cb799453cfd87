-- Managed inference (managed_inference_daily) in the filters: UTC days in the range, of a chosen
-- team (gateway rows; provider exports carry no team) and workload class. Projects and
-- accelerator types are the cloud's, not the providers': those filters do not apply.
SELECT m.*
FROM managed_inference_daily AS m
CROSS JOIN filter_values AS f
WHERE m.day BETWEEN f.start_day AND f.end_day
  AND (array_length(f.teams) = 0 OR list_contains(f.teams, m.team))
  AND (array_length(f.classes) = 0 OR list_contains(f.classes, m.workload_class))
