-- @table: One job: its attempts (runs) summed. USD.
-- @col job_id: The job.
-- @col team: Owning team (of the first attempt).
-- @col workload_class: Workload class (of the first attempt).
-- @col experiment_id: Experiment (of the first attempt).
-- @col model_name: Model (of the first attempt).
-- @col attempts: Runs (attempts) of the job.
-- @col final_status: Status of the last attempt.
-- @col accelerator_hours: Accelerator-hours held, all attempts.
-- @col effective_cost: Cost of all attempts (USD).
-- @col list_cost: List cost of all attempts (USD).
-- @col failed_attempts_cost: Cost of the attempts that failed or were cancelled (USD).
SELECT
    job_id,
    arg_min(team, attempt) AS team,
    arg_min(workload_class, attempt) AS workload_class,
    arg_min(experiment_id, attempt) AS experiment_id,
    arg_min(model_name, attempt) AS model_name,
    count(*) AS attempts,
    arg_max(status, attempt) AS final_status,
    CAST(sum(CAST(accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS accelerator_hours,  -- exact: rerun-stable
    sum(effective_cost) AS effective_cost,
    sum(list_cost) AS list_cost,
    coalesce(sum(effective_cost) FILTER (WHERE status IN ('failed', 'cancelled')), 0) AS failed_attempts_cost
FROM cost_per_run
GROUP BY job_id
ORDER BY job_id
