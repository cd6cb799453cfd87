-- The cost explorer's own filters as one row, bound by name (dashboards/views/explorer.py,
-- explorer_params) and typed once here; an empty list means "all". $label_key names the label
-- that the label grouping and $f_label filter read.
SELECT
    CAST($f_provider AS VARCHAR[]) AS providers,
    CAST($f_billing_account_id AS VARCHAR[]) AS accounts,
    CAST($f_project_id AS VARCHAR[]) AS projects,
    CAST($f_service_name AS VARCHAR[]) AS services,
    CAST($f_sku_description AS VARCHAR[]) AS skus,
    CAST($f_pricing_model AS VARCHAR[]) AS pricing_models,
    CAST($f_run_team AS VARCHAR[]) AS run_teams,
    CAST($f_label_team AS VARCHAR[]) AS label_teams,
    CAST($f_run_id AS VARCHAR[]) AS runs,
    CAST($f_accelerator_type AS VARCHAR[]) AS accelerators,
    CAST($f_workload_class AS VARCHAR[]) AS classes,
    CAST($f_cost_part AS VARCHAR[]) AS cost_parts,
    CAST($f_credit_type AS VARCHAR[]) AS credit_types,
    CAST($label_key AS VARCHAR) AS label_key,
    CAST($f_label AS VARCHAR[]) AS label_values
