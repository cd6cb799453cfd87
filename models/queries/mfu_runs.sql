-- @query: The runs in the filters (fragments/runs_in_filters.sql) with an MFU figure (it needs
--   telemetry and model FLOPs, so tokens): the Efficiency page's MFU distribution.
SELECT r.run_id, r.accelerator_type, r.workload_class, r.mfu_spec_pct, r.mfu_measured_pct
FROM runs_in_filters AS r
WHERE r.mfu_spec_pct IS NOT NULL
ORDER BY r.run_id
