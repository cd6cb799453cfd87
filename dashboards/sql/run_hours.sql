-- @query: One run's cost by resource and UTC hour (run_allocation).
-- @param run_id: the run
SELECT
    a.hour,
    a.resource_name,
    a.project_id,
    CAST(a.held_accelerator_seconds AS DOUBLE) / 3600 AS held_accelerator_hours,
    a.share,
    a.effective_cost AS run_cost
FROM run_allocation AS a
WHERE a.run_id = $run_id
ORDER BY a.hour, a.resource_name
