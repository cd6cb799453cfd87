-- @query: One UTC usage day (and group, when grouped) of effective cost in USD (cost + credits)
--   of the billing rows in a budget's or rule's scope. A row's team is its `team` label
--   (else GKE's k8s-label/team or k8s-namespace: row_team; '__unallocated__' without one), as in
--   spend_daily. Every scope list that is empty
--   matches anything; every one given must match.
-- @param group_by: what `grp` holds: 'team', 'project' (project_id) or 'accelerator_type';
--   NULL for no grouping (grp is then NULL).
-- @param teams: teams to include (VARCHAR[]); empty: any.
-- @param projects: project ids to include (VARCHAR[]); empty: any.
-- @param accelerator_types: accelerator types to include (VARCHAR[]); empty: any.
-- @param label_keys: label keys that must be present (VARCHAR[]); empty: any labels.
-- @param label_values: the value each of label_keys must have, in the same order (VARCHAR[]).
SELECT usage_day AS day,
       CASE $group_by
           WHEN 'team' THEN team
           WHEN 'project' THEN project_id
           WHEN 'accelerator_type' THEN accelerator_type
       END AS grp,
       sum(cost_usd + credits_total_usd) AS spend
FROM (
    SELECT *, coalesce(row_team(labels), '__unallocated__') AS team FROM billing_line_items
) AS billed
WHERE (array_length($teams) = 0 OR list_contains($teams, team))
  AND (array_length($projects) = 0 OR list_contains($projects, project_id))
  AND (array_length($accelerator_types) = 0 OR list_contains($accelerator_types, accelerator_type))
  AND (array_length($label_keys) = 0
       OR list_has_all(map_entries(labels), map_entries(map($label_keys, $label_values))))
GROUP BY usage_day, grp
