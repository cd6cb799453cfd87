-- @table: One experiment: the cost of all its runs, failed and cancelled ones included, and the cost per successful run. USD.
-- @col experiment_id: The experiment.
-- @col team: The team with most of its runs (of teams with as many, the first by name).
-- @col runs: Runs of the experiment.
-- @col successful_runs: Runs that succeeded.
-- @col failed_runs: Runs that failed or were cancelled.
-- @col accelerator_hours: Accelerator-hours held.
-- @col effective_cost: Cost of every run of the experiment (USD).
-- @col failed_runs_cost: Cost of its failed and cancelled runs (USD).
-- @col cost_per_successful_run: effective_cost / successful_runs (USD, truncated to 9 places); null when none succeeded.
WITH team_runs AS (
    SELECT experiment_id, team, count(*) AS runs
    FROM cost_per_run
    WHERE experiment_id IS NOT NULL AND team IS NOT NULL
    GROUP BY experiment_id, team
),
lead_team AS (
    -- a tie goes to the first team by name, so that reruns name the same team
    SELECT experiment_id, team
    FROM team_runs
    QUALIFY row_number() OVER (PARTITION BY experiment_id ORDER BY runs DESC, team) = 1
)
SELECT
    c.experiment_id,
    max(l.team) AS team,  -- one per experiment
    count(*) AS runs,
    count(*) FILTER (WHERE status = 'succeeded') AS successful_runs,
    count(*) FILTER (WHERE status IN ('failed', 'cancelled')) AS failed_runs,
    CAST(sum(CAST(accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS accelerator_hours,  -- exact: rerun-stable
    sum(effective_cost) AS effective_cost,
    coalesce(sum(effective_cost) FILTER (WHERE status IN ('failed', 'cancelled')), 0) AS failed_runs_cost,
    CASE WHEN count(*) FILTER (WHERE status = 'succeeded') > 0
         THEN from_nanos(to_nanos(sum(effective_cost)) // count(*) FILTER (WHERE status = 'succeeded')) END AS cost_per_successful_run
FROM cost_per_run AS c
LEFT JOIN lead_team AS l USING (experiment_id)
WHERE c.experiment_id IS NOT NULL
GROUP BY c.experiment_id
ORDER BY c.experiment_id
