-- @table: One run, resource and UTC hour: how busy the accelerators it held were (the resource-hour's held busy fraction), the cost of holding them idle (allocated idle), and its share of the GPU energy.
-- @depends: run_allocation, resource_hour_utilisation
-- @col run_id: The run.
-- @col project_id: Project of the resource.
-- @col resource_name: The resource.
-- @col hour: UTC hour (start).
-- @col held_accelerator_seconds: Accelerator-seconds the run held.
-- @col covered_accelerator_seconds: Of those, the part with telemetry (held x the resource-hour's coverage).
-- @col busy_accelerator_seconds: held x busy fraction (null without telemetry).
-- @col allocated_idle_nanos: floor(allocated cost x (1 - busy fraction)) in nano-USD: held but not busy (null without telemetry).
-- @col energy_j: The run's share of the resource-hour's GPU energy (its cost share), joules.
SELECT
    a.run_id,
    a.project_id,
    a.resource_name,
    a.hour,
    a.held_accelerator_seconds,
    a.held_accelerator_seconds * coalesce(u.telemetry_coverage, 0) AS covered_accelerator_seconds,
    a.held_accelerator_seconds * u.held_busy_micros / 1e6 AS busy_accelerator_seconds,
    CASE WHEN u.held_busy_micros IS NOT NULL
         THEN floor_div(a.allocated_nanos * (1000000 - u.held_busy_micros), 1000000) END AS allocated_idle_nanos,
    u.energy_j * a.share AS energy_j
FROM run_allocation AS a
LEFT JOIN resource_hour_utilisation AS u USING (project_id, resource_name, hour)
