-- @query: Cost per million tokens per UTC day (of run start) and one whitelisted dimension
--   ($dimension), by the rule of tokens_by.sql.
-- @param dimension: the whitelisted column to group by (the view checks it against its list)
WITH grouped AS (
    SELECT
        CAST(r.started_at AS DATE) AS day,
        CASE $dimension
            WHEN 'model_name' THEN r.model_name
            WHEN 'team' THEN r.team
            WHEN 'workload_class' THEN r.workload_class
            WHEN 'accelerator_type' THEN r.accelerator_type
            WHEN 'project_id' THEN r.project_id
        END AS dimension_value,
        sum(coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0)) AS tokens,
        sum(r.effective_cost) AS effective_cost
    FROM runs_in_filters AS r
    WHERE r.started_at IS NOT NULL
      AND coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0) > 0
    GROUP BY 1, 2
)
SELECT
    day,
    coalesce(dimension_value, '(none)') AS dimension_value,
    CAST(CAST(effective_cost * 1000000000 AS HUGEINT) * 1000000 // tokens AS DECIMAL(38, 0))
        * CAST(0.000000001 AS DECIMAL(10, 9)) AS usd_per_million_tokens
FROM grouped
ORDER BY day, dimension_value
