-- @query: One UTC usage day (and group, when grouped) of effective cost in USD (cost + credits)
--   of the billing rows (GCP export and FOCUS) in a budget's or rule's scope. A row's team is its `team` label
--   (else GKE's k8s-label/team or k8s-namespace: row_team; '__unallocated__' without one), as in
--   spend_daily. Every scope list that is empty
--   matches anything; every one given must match.
-- @param group_by: what `group_value` holds: 'team', 'project' (project_id) or 'accelerator_type';
--   NULL for no grouping (group_value is then NULL).
-- @param teams: teams to include (VARCHAR[]); empty: any.
-- @param projects: project ids to include (VARCHAR[]); empty: any.
-- @param accelerator_types: accelerator types to include (VARCHAR[]); empty: any.
-- @param label_keys: label keys that must be present (VARCHAR[]); empty: any labels.
-- @param label_values: the value each of label_keys must have, in the same order (VARCHAR[]).
-- The group is chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
SELECT day, group_value, sum(spend_usd) AS effective_cost
FROM (
SELECT usage_day AS day,
       CASE $group_by
           WHEN 'team' THEN team
           WHEN 'project' THEN project_id
           WHEN 'accelerator_type' THEN accelerator_type
       END AS group_value,
       spend_usd
FROM (
    SELECT usage_day, project_id, accelerator_type, cost_usd + credits_total_usd AS spend_usd,
           coalesce(row_team(labels), '__unallocated__') AS team,
           array_length($label_keys) = 0
               OR list_has_all(map_entries(labels), map_entries(map($label_keys, $label_values))) AS labels_match
    FROM billing_line_items
    UNION ALL
    -- Other clouds' FOCUS rows, as spend_daily reads them: the charge day, EffectiveCost, the team
    -- its Tags name, the SubAccountId as project, labels as Tags (USD rows, as spend_daily).
    SELECT charge_day, sub_account_id, accelerator_type, coalesce(effective_cost, billed_cost),
           coalesce(nullif(trim(json_extract_string(tags, '$.team')), ''), '__unallocated__'),
           array_length($label_keys) = 0
               OR NOT EXISTS (
                   SELECT 1 FROM unnest(map_entries(map($label_keys, $label_values))) AS want(e)
                   WHERE json_extract_string(f.tags, '$."' || e.key || '"') IS DISTINCT FROM e.value)
    FROM focus_line_items AS f
    WHERE billing_currency = 'USD'
) AS billed
WHERE (array_length($teams) = 0 OR list_contains($teams, team))
  AND (array_length($projects) = 0 OR list_contains($projects, project_id))
  AND (array_length($accelerator_types) = 0 OR list_contains($accelerator_types, accelerator_type))
  AND labels_match
) AS scoped
GROUP BY day, group_value
