-- @query: Runs in the filters matching the search text, sorted by a whitelisted key, limited.
--   Money keys sort on their exact DECIMAL, the other keys on DOUBLE: for a given key one of
--   the two values is NULL on every row, so it orders nothing.
-- @param descending: true to sort highest first
-- @param row_limit: how many rows at most
-- @param sort_key: the whitelisted column to sort by
WITH keyed AS (
    SELECT
        r.*,
        CASE $sort_key
            WHEN 'effective_cost' THEN r.effective_cost
            WHEN 'cost_per_million_tokens' THEN r.cost_per_million_tokens
        END AS money_sort,
        CASE $sort_key
            WHEN 'accelerator_hours' THEN r.accelerator_hours
            WHEN 'queue_seconds' THEN r.queue_seconds
            WHEN 'started_at' THEN CAST(epoch(r.started_at) AS DOUBLE)
            WHEN 'mean_utilisation_pct' THEN r.mean_utilisation_pct
            WHEN 'mfu_spec_pct' THEN r.mfu_spec_pct
        END AS other_sort,
        CAST($descending AS BOOLEAN) AS descending
    FROM runs_matching_search AS r
)
SELECT
    r.run_id,
    r.provider,
    r.team,
    r.project_id,
    r.workload_class,
    r.model_name,
    r.experiment_id,
    r.accelerator_type,
    r.accelerator_count,
    r.status,
    r.started_at,
    r.ended_at,
    r.queue_seconds,
    r.accelerator_hours,
    r.effective_cost AS effective_usd,
    r.list_cost AS list_usd,
    r.tokens_in,
    r.tokens_out,
    r.cost_per_million_tokens AS usd_per_million_tokens,
    r.mean_utilisation_pct,
    r.energy_kwh,
    r.mfu_spec_pct
FROM keyed AS r
ORDER BY
    CASE WHEN r.descending THEN r.money_sort END DESC NULLS LAST,
    CASE WHEN r.descending THEN r.other_sort END DESC NULLS LAST,
    CASE WHEN NOT r.descending THEN r.money_sort END ASC NULLS LAST,
    CASE WHEN NOT r.descending THEN r.other_sort END ASC NULLS LAST,
    r.run_id
LIMIT $row_limit
