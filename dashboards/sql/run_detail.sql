-- @query: One run.
-- @param run_id: the run
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
    r.effective_cost,
    r.list_cost,
    r.tokens_in,
    r.tokens_out,
    r.cost_per_million_tokens,
    r.mean_utilisation_pct,
    r.energy_kwh,
    r.mfu_spec_pct,
    r.resource_cost,
    r.direct_cost,
    r.allocated_accelerator_hours,
    r.busy_accelerator_hours,
    r.telemetry_coverage,
    r.mfu_measured_pct,
    r.clipped
FROM cost_per_run AS r
WHERE r.run_id = $run_id
