-- @table: One run (one attempt of a job): what it cost (its allocated share of every resource-hour it held, plus billing rows labelled with it), what it held, and what it produced. Money in USD.
-- @grain run: run_id
-- @check runs_within_what_they_held (error, blocking): No run is allocated more accelerator-hours than it held.
-- @col run_id: The run.
-- @col job_id: The job it is an attempt of.
-- @col attempt: Attempt number (1 = first).
-- @col team: Owning team.
-- @col project_id: Cloud project (from the jobs file; for Slurm runs, the project of the nodes they held).
-- @col workload_class: pretraining, post_training, rl_eval, online_inference, batch_inference or other.
-- @col experiment_id: Experiment.
-- @col model_name: Model.
-- @col model_params: Model parameters (count).
-- @col accelerator_type: Canonical accelerator type.
-- @col accelerator_count: Accelerators requested.
-- @col status: succeeded, failed, cancelled or running.
-- @col submitted_at: Submission time (UTC).
-- @col started_at: Start (UTC).
-- @col ended_at: End (UTC); null while running.
-- @col queue_seconds: started_at - submitted_at, seconds.
-- @col accelerator_hours: Accelerator-hours the run held on billed resources.
-- @col allocated_accelerator_hours: Paid accelerator-hours allocated to it (held, clipped to what was paid).
-- @col resource_cost: Cost allocated from the resource-hours it held (USD).
-- @col direct_cost: Cost of billing rows labelled with the run (USD).
-- @col effective_cost: resource_cost + direct_cost (USD): what the run cost.
-- @col list_cost: The same at list prices (USD).
-- @col tokens_in: Tokens read.
-- @col tokens_out: Tokens written.
-- @col cost_per_million_tokens: effective_cost / ((tokens_in + tokens_out) / 1e6), USD, truncated to 9 places; null without tokens.
-- @col cost_per_million_output_tokens: effective_cost / (tokens_out / 1e6) for inference runs, USD.
-- @col clipped: True when some resource-hour it held was over-claimed (its share was clipped).
-- @col busy_accelerator_hours: Held accelerator-hours that telemetry shows busy (null without telemetry).
-- @col mean_utilisation_pct: busy / held accelerator-hours over the hours with telemetry, percent.
-- @col telemetry_coverage: Share (0 to 1) of the run's held accelerator-hours that had telemetry.
-- @col no_telemetry: True when less than 95% of the run's accelerator-hours had telemetry.
-- @col allocated_idle_cost: Cost of the accelerators it held while they were not busy (USD; null without telemetry).
-- @col energy_kwh: GPU energy while held, kWh (NVML; its cost share of each node-hour's energy).
-- @col energy_kwh_per_million_tokens: energy_kwh / ((tokens_in + tokens_out) / 1e6).
-- @col model_flops: Model FLOPs of the run (6 x params x tokens for training, 2 x params x tokens for inference, or the run's override).
-- @col mfu_spec_pct: Model FLOPs utilisation against the accelerators' spec peak, percent.
-- @col mfu_measured_pct: Model FLOPs utilisation against the slowest probe-measured peak of its nodes, percent.
-- @col provider: Who billed the resources it held: gcp, or the FOCUS ProviderName (AWS, Microsoft, Oracle ...); null for a run that held no billed resource-hour (the first by name for a run that held several providers').
-- @col run_day: UTC day the run started (submitted, if it never started): the day the dashboards' date range picks it by, and its partition on BigQuery.
WITH allocated AS (
    SELECT
        run_id,
        sum(a.allocated_nanos) AS allocated_nanos,
        sum(a.allocated_list_nanos) AS allocated_list_nanos,
        sum(a.allocated_accelerator_nanos) AS allocated_accelerator_nanos,
        bool_or(a.clipped) AS clipped,
        min(a.project_id) AS billed_project_id,
        min(p.provider) AS provider
    FROM run_allocation AS a
    LEFT JOIN resource_hour_pool AS p USING (project_id, resource_name, hour)
    GROUP BY run_id
),
held AS (
    SELECT run_id, sum(held_accelerator_nanos) AS held_nanos
    FROM run_held_hours
    GROUP BY run_id
),
telemetry AS (
    SELECT
        run_id,
        -- Float sums as exact decimals: the same digits whatever order the threads add in.
        CAST(sum(CAST(held_accelerator_seconds AS DECIMAL(38, 9))) AS DOUBLE) AS held_s,
        CAST(sum(CAST(covered_accelerator_seconds AS DECIMAL(38, 9))) AS DOUBLE) AS covered_s,
        CAST(sum(CAST(busy_accelerator_seconds AS DECIMAL(38, 9))) AS DOUBLE) AS busy_s,
        CAST(sum(CASE WHEN busy_accelerator_seconds IS NOT NULL THEN CAST(held_accelerator_seconds AS DECIMAL(38, 9)) END) AS DOUBLE) AS busy_basis_s,
        sum(allocated_idle_nanos) AS allocated_idle_nanos,
        CAST(sum(CAST(energy_j AS DECIMAL(38, 6))) AS DOUBLE) AS energy_j
    FROM run_utilisation
    GROUP BY run_id
),
costed AS (
    SELECT
        j.*,
        coalesce(a.allocated_nanos, 0) AS resource_nanos,
        coalesce(d.direct_nanos, 0) AS direct_nanos,
        coalesce(a.allocated_nanos, 0) + coalesce(d.direct_nanos, 0) AS effective_nanos,
        coalesce(a.allocated_list_nanos, 0) + coalesce(d.direct_list_nanos, 0) AS list_nanos,
        coalesce(h.held_nanos, 0) AS held_nanos,
        coalesce(a.allocated_accelerator_nanos, 0) AS allocated_accelerator_nanos,
        coalesce(a.clipped, false) AS clipped,
        a.billed_project_id,
        a.provider,
        m.model_flops AS run_model_flops, m.mfu_spec_pct, m.mfu_measured_pct,
        t.held_s, t.covered_s, t.busy_s, t.busy_basis_s, t.allocated_idle_nanos, t.energy_j,
        CAST(coalesce(j.tokens_in, 0) + coalesce(j.tokens_out, 0) AS HUGEINT) AS tokens_total
    FROM jobs AS j
    LEFT JOIN allocated AS a USING (run_id)
    LEFT JOIN run_direct_costs AS d USING (run_id)
    LEFT JOIN held AS h USING (run_id)
    LEFT JOIN telemetry AS t USING (run_id)
    LEFT JOIN run_mfu AS m USING (run_id)
)
SELECT
    run_id,
    job_id,
    attempt,
    team,
    coalesce(project_id, billed_project_id) AS project_id,
    workload_class,
    experiment_id,
    model_name,
    model_params,
    accelerator_type,
    accelerator_count,
    status,
    submitted_at,
    started_at,
    ended_at,
    CAST(epoch(started_at) - epoch(submitted_at) AS DOUBLE) AS queue_seconds,
    CAST(held_nanos AS DOUBLE) / 3.6e12 AS accelerator_hours,
    CAST(allocated_accelerator_nanos AS DOUBLE) / 3.6e12 AS allocated_accelerator_hours,
    from_nanos(resource_nanos) AS resource_cost,
    from_nanos(direct_nanos) AS direct_cost,
    from_nanos(effective_nanos) AS effective_cost,
    from_nanos(list_nanos) AS list_cost,
    tokens_in,
    tokens_out,
    CASE WHEN tokens_total > 0 THEN from_nanos(effective_nanos * 1000000 // tokens_total) END AS cost_per_million_tokens,
    CASE WHEN workload_class IN ('online_inference', 'batch_inference') AND coalesce(tokens_out, 0) > 0
         THEN from_nanos(effective_nanos * 1000000 // CAST(tokens_out AS HUGEINT)) END AS cost_per_million_output_tokens,
    clipped,
    busy_s / 3600 AS busy_accelerator_hours,
    100 * busy_s / nullif(busy_basis_s, 0) AS mean_utilisation_pct,
    CASE WHEN held_s > 0 THEN covered_s / held_s END AS telemetry_coverage,
    coalesce(covered_s / nullif(held_s, 0), 0) < 0.95 AS no_telemetry,
    from_nanos(allocated_idle_nanos) AS allocated_idle_cost,
    energy_j / 3.6e6 AS energy_kwh,
    CASE WHEN tokens_total > 0 THEN energy_j / 3.6e6 / (CAST(tokens_total AS DOUBLE) / 1e6) END AS energy_kwh_per_million_tokens,
    run_model_flops AS model_flops,
    mfu_spec_pct,
    mfu_measured_pct,
    provider,
    CAST(coalesce(started_at, submitted_at) AS DATE) AS run_day
FROM costed
ORDER BY run_id
