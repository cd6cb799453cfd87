-- @query: Probe results per node and day (accelerator_efficiency) in the filters: UTC days in
--   the range, the chosen accelerator types. Probes measure nodes: team, project and workload
--   do not apply.
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT e.*
FROM accelerator_efficiency AS e
CROSS JOIN filter_values AS f
WHERE e.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)  -- parameters: BigQuery prunes a partitioned mart by them
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, e.accelerator_type))
