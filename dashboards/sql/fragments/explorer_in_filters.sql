-- The cost explorer's facts (cost_explorer_rows) in its filters, on any day; each row also
-- carries the value of the chosen label key (label_value, '(none)' without it). A value that
-- is null in the facts (no run, no accelerator) is matched as '(none)'. A credit-type filter
-- keeps the billing rows that carry a credit of a chosen type ('(none)': rows without credits).
SELECT
    c.*,
    coalesce(c.labels[f.label_key], '(none)') AS label_value
FROM cost_explorer_rows AS c
CROSS JOIN explorer_filter_values AS f
WHERE (len(f.providers) = 0 OR list_contains(f.providers, coalesce(c.provider, '(none)')))
  AND (len(f.accounts) = 0 OR list_contains(f.accounts, coalesce(c.billing_account_id, '(none)')))
  AND (len(f.projects) = 0 OR list_contains(f.projects, coalesce(c.project_id, '(none)')))
  AND (len(f.services) = 0 OR list_contains(f.services, coalesce(c.service_name, '(none)')))
  AND (len(f.skus) = 0 OR list_contains(f.skus, coalesce(c.sku_description, '(none)')))
  AND (len(f.pricing_models) = 0 OR list_contains(f.pricing_models, c.pricing_model))
  AND (len(f.run_teams) = 0 OR list_contains(f.run_teams, coalesce(c.run_team, '(none)')))
  AND (len(f.label_teams) = 0 OR list_contains(f.label_teams, c.label_team))
  AND (len(f.runs) = 0 OR list_contains(f.runs, coalesce(c.run_id, '(none)')))
  AND (len(f.accelerators) = 0 OR list_contains(f.accelerators, coalesce(c.accelerator_type, '(none)')))
  AND (len(f.classes) = 0 OR list_contains(f.classes, coalesce(c.workload_class, '(none)')))
  AND (len(f.cost_parts) = 0 OR list_contains(f.cost_parts, c.cost_part))
  AND (len(f.credit_types) = 0 OR list_has_any(f.credit_types, c.credit_types)
       OR (list_contains(f.credit_types, '(none)') AND len(c.credit_types) = 0))
  AND (len(f.label_values) = 0 OR list_contains(f.label_values, coalesce(c.labels[f.label_key], '(none)')))
