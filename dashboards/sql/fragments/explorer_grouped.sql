-- @query: The explorer's facts in its filters with the chosen grouping's value (group_value)
--   and the period of its day (period: the day, its ISO week's Monday or its month's first
--   day). $dimension and $grain are bound and matched against fixed CASEs
--   (data.EXPLORER_DIMENSIONS, data.EXPLORER_GRAINS whitelist them first).
-- @param dimension: the whitelisted column to group by (the view checks it against its list)
-- @param grain: day, week or month: the period a row covers
SELECT
    e.*,
    coalesce(CASE $dimension
        WHEN 'provider' THEN e.provider
        WHEN 'billing_account_id' THEN e.billing_account_id
        WHEN 'project_id' THEN e.project_id
        WHEN 'service_name' THEN e.service_name
        WHEN 'sku_description' THEN e.sku_description
        WHEN 'label' THEN e.label_value
        WHEN 'pricing_model' THEN e.pricing_model
        WHEN 'run_team' THEN e.run_team
        WHEN 'label_team' THEN e.label_team
        WHEN 'run_id' THEN e.run_id
        WHEN 'accelerator_type' THEN e.accelerator_type
        WHEN 'workload_class' THEN e.workload_class
        WHEN 'cost_part' THEN e.cost_part
    END, '(none)') AS group_value,
    CAST(CASE $grain
        WHEN 'week' THEN date_trunc('week', e.day)
        WHEN 'month' THEN date_trunc('month', e.day)
        ELSE e.day
    END AS DATE) AS period
FROM explorer_in_filters AS e
