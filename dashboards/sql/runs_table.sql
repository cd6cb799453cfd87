-- Runs in the filters matching the search text, sorted by a whitelisted key, limited.
-- Params: filters, search text (lower case), sort key, descending, row limit.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators,
        CAST(? AS VARCHAR) AS needle,
        CAST(? AS VARCHAR) AS sort_key,
        CAST(? AS BOOLEAN) AS descending
),
keyed AS (
    SELECT
        r.*,
        CASE p.sort_key
            WHEN 'effective_cost' THEN CAST(r.effective_cost AS DOUBLE)
            WHEN 'accelerator_hours' THEN r.accelerator_hours
            WHEN 'cost_per_million_tokens' THEN CAST(r.cost_per_million_tokens AS DOUBLE)
            WHEN 'queue_seconds' THEN r.queue_seconds
            WHEN 'started_at' THEN CAST(epoch(r.started_at) AS DOUBLE)
            WHEN 'mean_utilisation_pct' THEN r.mean_utilisation_pct
            WHEN 'mfu_spec_pct' THEN r.mfu_spec_pct
        END AS sort_value,
        p.descending
    FROM cost_per_run AS r, p
    WHERE CAST(coalesce(r.started_at, r.submitted_at) AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.teams) = 0 OR list_contains(p.teams, r.team))
  AND (len(p.projects) = 0 OR list_contains(p.projects, r.project_id))
  AND (len(p.classes) = 0 OR list_contains(p.classes, r.workload_class))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, r.accelerator_type))
  AND (p.needle = '' OR strpos(lower(r.run_id), p.needle) > 0
       OR strpos(lower(coalesce(r.job_id, '')), p.needle) > 0
       OR strpos(lower(coalesce(r.model_name, '')), p.needle) > 0
       OR strpos(lower(coalesce(r.experiment_id, '')), p.needle) > 0)
)
SELECT
    r.run_id,
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
    CAST(r.effective_cost AS DOUBLE) AS effective_usd,
    CAST(r.list_cost AS DOUBLE) AS list_usd,
    r.tokens_in,
    r.tokens_out,
    CAST(r.cost_per_million_tokens AS DOUBLE) AS usd_per_million_tokens,
    r.mean_utilisation_pct,
    r.energy_kwh,
    r.mfu_spec_pct
FROM keyed AS r
ORDER BY
    CASE WHEN r.descending THEN r.sort_value END DESC NULLS LAST,
    CASE WHEN NOT r.descending THEN r.sort_value END ASC NULLS LAST,
    r.run_id
LIMIT ?
