-- @query: Cost per million tokens by one whitelisted dimension ($dimension), over runs with
--   tokens. The rule of cost_per_million_tokens: cost in nano-USD x 1e6 // tokens, so the rate
--   is an exact DECIMAL truncated to 9 places.
-- @param dimension: the whitelisted column to group by (the view checks it against its list)
WITH grouped AS (
    SELECT
        CASE $dimension
            WHEN 'model_name' THEN r.model_name
            WHEN 'team' THEN r.team
            WHEN 'workload_class' THEN r.workload_class
            WHEN 'accelerator_type' THEN r.accelerator_type
            WHEN 'project_id' THEN r.project_id
        END AS dimension_value,
        count(*) AS runs,
        sum(coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0)) AS tokens,
        sum(r.tokens_out) AS tokens_out,
        sum(r.effective_cost) AS effective_cost
    FROM runs_in_filters AS r
    WHERE coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0) > 0
    GROUP BY 1
)
SELECT
    coalesce(dimension_value, '(none)') AS dimension_value,
    runs,
    CAST(tokens AS DOUBLE) AS tokens,
    effective_cost AS effective_usd,
    CAST(CAST(effective_cost * 1000000000 AS HUGEINT) * 1000000 // tokens AS DECIMAL(38, 0))
        * CAST(0.000000001 AS DECIMAL(10, 9)) AS usd_per_million_tokens,
    CAST(CAST(effective_cost * 1000000000 AS HUGEINT) * 1000000 // nullif(tokens_out, 0)
        AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)) AS usd_per_million_output_tokens
FROM grouped
ORDER BY effective_usd DESC, dimension_value
