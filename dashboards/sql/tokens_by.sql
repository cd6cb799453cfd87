-- Cost per million tokens by one whitelisted dimension, over runs with tokens (the rule of
-- cost_per_million_tokens). Params: filters, dimension.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators,
        CAST(? AS VARCHAR) AS dimension
),
grouped AS (
    SELECT
        CASE p.dimension
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
    FROM cost_per_run AS r, p
    WHERE CAST(coalesce(r.started_at, r.submitted_at) AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, r.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, r.project_id))
  AND (len(p.classes) = 0 OR list_contains(p.classes, r.workload_class))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, r.accelerator_type))
      AND coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0) > 0
    GROUP BY 1
)
SELECT
    coalesce(dimension_value, '(none)') AS dimension_value,
    runs,
    CAST(tokens AS DOUBLE) AS tokens,
    CAST(effective_cost AS DOUBLE) AS effective_usd,
    CAST(effective_cost AS DOUBLE) / (CAST(tokens AS DOUBLE) / 1e6) AS usd_per_million_tokens,
    CAST(effective_cost AS DOUBLE) / nullif(CAST(tokens_out AS DOUBLE) / 1e6, 0) AS usd_per_million_output_tokens
FROM grouped
ORDER BY effective_usd DESC, dimension_value
