-- Probe results per node and day (accelerator_efficiency) in the filters: UTC days in the
-- range, the chosen accelerator types. Probes measure nodes: team, project and workload do not
-- apply.
SELECT e.*
FROM accelerator_efficiency AS e
CROSS JOIN filter_values AS f
WHERE e.day BETWEEN f.start_day AND f.end_day
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, e.accelerator_type))
