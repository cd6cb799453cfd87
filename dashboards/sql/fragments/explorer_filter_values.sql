-- @query: The cost explorer's own filters as one row, bound by name
--   (dashboards/views/explorer.py, explorer_params) and typed once here; an empty list means
--   "all". $label_key names the label that the label grouping and $f_label filter read.
-- @param f_accelerator_type: the explorer's chosen accelerator type values (VARCHAR[]; empty: all)
-- @param f_billing_account_id: the explorer's chosen billing account id values (VARCHAR[]; empty: all)
-- @param f_cost_part: the explorer's chosen cost part values (VARCHAR[]; empty: all)
-- @param f_credit_type: the explorer's chosen credit type values (VARCHAR[]; empty: all)
-- @param f_label: label values chosen for $label_key (VARCHAR[]; empty: all)
-- @param f_label_team: the explorer's chosen label team values (VARCHAR[]; empty: all)
-- @param f_pricing_model: the explorer's chosen pricing model values (VARCHAR[]; empty: all)
-- @param f_project_id: the explorer's chosen project id values (VARCHAR[]; empty: all)
-- @param f_provider: the explorer's chosen provider values (VARCHAR[]; empty: all)
-- @param f_run_id: the explorer's chosen run id values (VARCHAR[]; empty: all)
-- @param f_run_team: the explorer's chosen run team values (VARCHAR[]; empty: all)
-- @param f_service_name: the explorer's chosen service name values (VARCHAR[]; empty: all)
-- @param f_sku_description: the explorer's chosen sku description values (VARCHAR[]; empty: all)
-- @param f_workload_class: the explorer's chosen workload class values (VARCHAR[]; empty: all)
-- @param label_key: the label key the label grouping and filter read (VARCHAR)
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
