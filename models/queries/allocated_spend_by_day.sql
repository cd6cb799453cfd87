-- @query: One UTC day (and group, when grouped) of the cost allocated to the runs in a budget's
--   or rule's scope: run_allocation by hour, plus billing rows labelled with a run (on the
--   run's start day), joined to `jobs` for team ('__unallocated__' without one), project,
--   workload class, accelerator type and labels. Every scope list that is empty matches
--   anything; every one given must match.
-- @param group_by: what `group_value` holds: 'team', 'project' (project_id) or 'accelerator_type';
--   NULL for no grouping (group_value is then NULL).
-- @param teams: teams to include (VARCHAR[]); empty: any.
-- @param projects: project ids to include (VARCHAR[]); empty: any.
-- @param accelerator_types: accelerator types to include (VARCHAR[]); empty: any.
-- @param workload_classes: workload classes to include (VARCHAR[]); empty: any.
-- @param label_keys: run label keys that must be present (VARCHAR[]); empty: any labels.
-- @param label_values: the value each of label_keys must have, in the same order (VARCHAR[]).
WITH run_cost AS (
    SELECT CAST(hour AS DATE) AS day, run_id, effective_cost AS cost FROM run_allocation
    UNION ALL
    SELECT CAST(coalesce(j.started_at, j.submitted_at) AS DATE), d.run_id,
           from_nanos(d.direct_nanos)
    FROM run_direct_costs AS d JOIN jobs AS j USING (run_id)
)
-- The group is chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
SELECT day, group_value, sum(cost) AS run_cost
FROM (
SELECT c.day,
       CASE $group_by
           WHEN 'team' THEN j.team_
           WHEN 'project' THEN j.project_id
           WHEN 'accelerator_type' THEN j.accelerator_type
       END AS group_value,
       c.cost
FROM run_cost AS c
JOIN (SELECT *, coalesce(team, '__unallocated__') AS team_ FROM jobs) AS j USING (run_id)
WHERE (array_length($teams) = 0 OR list_contains($teams, j.team_))
  AND (array_length($projects) = 0 OR list_contains($projects, j.project_id))
  AND (array_length($accelerator_types) = 0
       OR list_contains($accelerator_types, j.accelerator_type))
  AND (array_length($workload_classes) = 0
       OR list_contains($workload_classes, j.workload_class))
  AND (array_length($label_keys) = 0
       OR list_has_all(map_entries(j.labels), map_entries(map($label_keys, $label_values))))
) AS scoped
GROUP BY day, group_value
