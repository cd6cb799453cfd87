-- @query: The runs the filters and the search find (fragments/runs_found.sql: started, else
--   submitted, on a UTC day in [$start_day, $end_day], in the filters, with $needle in the run
--   id, job id, model or experiment), sorted by a whitelisted key (ties by run id) and limited. Money
--   keys sort on their exact DECIMAL, the other keys on DOUBLE: for a given key one of the two
--   values is NULL on every row, so it orders nothing. The one query of the top runs: the CLI,
--   the Overview and Runs pages and the month report run it.
-- @param sort_key: the whitelisted column to sort by: effective_cost, cost_per_million_tokens,
--   accelerator_hours, queue_seconds, started_at, mean_utilisation_pct or mfu_spec_pct.
-- @param descending: true to sort highest first (nulls last either way).
-- @param row_limit: how many rows at most.
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
    FROM runs_found AS r
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
    r.effective_cost,
    r.list_cost,
    r.tokens_in,
    r.tokens_out,
    coalesce(r.tokens_in, 0) + coalesce(r.tokens_out, 0) AS tokens,
    r.cost_per_million_tokens,
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
