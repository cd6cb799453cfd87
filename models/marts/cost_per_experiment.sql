-- @table: One experiment: the cost of all its runs, failed and cancelled ones included, and the cost per successful run. USD.
-- @col experiment_id: The experiment.
-- @col team: Team (most runs).
-- @col runs: Runs of the experiment.
-- @col successful_runs: Runs that succeeded.
-- @col failed_runs: Runs that failed or were cancelled.
-- @col accelerator_hours: Accelerator-hours held.
-- @col effective_cost: Cost of every run of the experiment (USD).
-- @col failed_runs_cost: Cost of its failed and cancelled runs (USD).
-- @col cost_per_successful_run: effective_cost / successful_runs (USD, truncated to 9 places); null when none succeeded.
SELECT
    experiment_id,
    mode(team) AS team,
    count(*) AS runs,
    count(*) FILTER (WHERE status = 'succeeded') AS successful_runs,
    count(*) FILTER (WHERE status IN ('failed', 'cancelled')) AS failed_runs,
    CAST(sum(CAST(accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS accelerator_hours,  -- exact: rerun-stable
    sum(effective_cost) AS effective_cost,
    coalesce(sum(effective_cost) FILTER (WHERE status IN ('failed', 'cancelled')), 0) AS failed_runs_cost,
    CASE WHEN count(*) FILTER (WHERE status = 'succeeded') > 0
         THEN from_nanos(to_nanos(sum(effective_cost)) // count(*) FILTER (WHERE status = 'succeeded')) END AS cost_per_successful_run
FROM cost_per_run
WHERE experiment_id IS NOT NULL
GROUP BY experiment_id
ORDER BY experiment_id
