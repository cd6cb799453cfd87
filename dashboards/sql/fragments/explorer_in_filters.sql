-- @query: The cost explorer's facts (cost_explorer_rows) in its filters, on any day; each row
--   also carries the value of the chosen label key (label_value, '(none)' without it). A value
--   that is null in the facts (no run, no accelerator) is matched as '(none)'. A credit-type
--   filter keeps the billing rows that carry a credit of a chosen type ('(none)': rows without
--   credits).
-- @param label_key: the label key the label grouping and filter read (VARCHAR)
SELECT
    c.*,
    coalesce(c.labels[CAST($label_key AS VARCHAR)], '(none)') AS label_value
FROM cost_explorer_rows AS c
CROSS JOIN explorer_filter_values AS f
WHERE (array_length(f.providers) = 0 OR list_contains(f.providers, coalesce(c.provider, '(none)')))
  AND (array_length(f.accounts) = 0 OR list_contains(f.accounts, coalesce(c.billing_account_id, '(none)')))
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, coalesce(c.project_id, '(none)')))
  AND (array_length(f.services) = 0 OR list_contains(f.services, coalesce(c.service_name, '(none)')))
  AND (array_length(f.skus) = 0 OR list_contains(f.skus, coalesce(c.sku_description, '(none)')))
  AND (array_length(f.pricing_models) = 0 OR list_contains(f.pricing_models, c.pricing_model))
  AND (array_length(f.run_teams) = 0 OR list_contains(f.run_teams, coalesce(c.run_team, '(none)')))
  AND (array_length(f.label_teams) = 0 OR list_contains(f.label_teams, c.label_team))
  AND (array_length(f.runs) = 0 OR list_contains(f.runs, coalesce(c.run_id, '(none)')))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, coalesce(c.accelerator_type, '(none)')))
  AND (array_length(f.classes) = 0 OR list_contains(f.classes, coalesce(c.workload_class, '(none)')))
  AND (array_length(f.cost_parts) = 0 OR list_contains(f.cost_parts, c.cost_part))
  AND (array_length(f.credit_types) = 0 OR list_has_any(f.credit_types, c.credit_types)
       OR (list_contains(f.credit_types, '(none)') AND array_length(c.credit_types) = 0))
  AND (array_length(f.label_values) = 0 OR list_contains(f.label_values, coalesce(c.labels[CAST($label_key AS VARCHAR)], '(none)')))
