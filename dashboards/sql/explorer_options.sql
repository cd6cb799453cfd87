-- @query: The values each explorer filter offers (cost_explorer_rows), and the label keys
--   (dimension 'label_key'). A null is offered as '(none)'.
WITH facts AS (SELECT * FROM cost_explorer_rows),
found AS (
    SELECT DISTINCT 'provider' AS dimension, coalesce(provider, '(none)') AS value FROM facts
    UNION SELECT DISTINCT 'billing_account_id', coalesce(billing_account_id, '(none)') FROM facts
    UNION SELECT DISTINCT 'project_id', coalesce(project_id, '(none)') FROM facts
    UNION SELECT DISTINCT 'service_name', coalesce(service_name, '(none)') FROM facts
    UNION SELECT DISTINCT 'sku_description', coalesce(sku_description, '(none)') FROM facts
    UNION SELECT DISTINCT 'pricing_model', pricing_model FROM facts
    UNION SELECT DISTINCT 'run_team', coalesce(run_team, '(none)') FROM facts
    UNION SELECT DISTINCT 'label_team', label_team FROM facts
    UNION SELECT DISTINCT 'run_id', coalesce(run_id, '(none)') FROM facts
    UNION SELECT DISTINCT 'accelerator_type', coalesce(accelerator_type, '(none)') FROM facts
    UNION SELECT DISTINCT 'workload_class', coalesce(workload_class, '(none)') FROM facts
    UNION SELECT DISTINCT 'cost_part', cost_part FROM facts
    UNION SELECT DISTINCT 'credit_type', unnest(credit_types) FROM facts
    UNION SELECT DISTINCT 'credit_type', '(none)' FROM facts WHERE array_length(credit_types) = 0
    UNION SELECT DISTINCT 'label_key', unnest(map_keys(labels)) FROM facts
)
SELECT dimension, value FROM found WHERE value IS NOT NULL ORDER BY dimension, value
