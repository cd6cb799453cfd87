-- @query: The accelerator portfolio (accelerator_portfolio) in the filters: the UTC months that
--   overlap the day range, of a chosen workload class; the accelerator filter keeps those
--   families (and drops managed providers, which are not accelerator types). Teams and projects
--   do not apply: the mart is not split by them.
SELECT p.*
FROM accelerator_portfolio AS p
CROSS JOIN filter_values AS f
WHERE p.month BETWEEN CAST(date_trunc('month', f.start_day) AS DATE) AND f.end_day
  AND (array_length(f.classes) = 0 OR list_contains(f.classes, p.workload_class))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, p.family))
