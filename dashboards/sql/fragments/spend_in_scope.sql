-- @query: Spend (spend_daily) of the chosen providers, teams and projects, on any day: spend
--   has no workload class or accelerator type, so those filters do not apply.
SELECT s.*
FROM spend_daily AS s
CROSS JOIN filter_values AS f
WHERE (array_length(f.providers) = 0 OR list_contains(f.providers, s.provider))
  AND (array_length(f.teams) = 0 OR list_contains(f.teams, s.team))
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, s.project_id))
