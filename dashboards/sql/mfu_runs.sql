-- @query: Runs with an MFU figure (needs telemetry and model FLOPs).
SELECT r.run_id, r.accelerator_type, r.workload_class, r.mfu_spec_pct, r.mfu_measured_pct
FROM runs_in_filters AS r
WHERE r.mfu_spec_pct IS NOT NULL
ORDER BY r.run_id
