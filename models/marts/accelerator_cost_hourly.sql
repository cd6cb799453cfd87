-- @table: One resource (project + resource_name) and UTC hour that paid for accelerators: billed, credits, effective and list cost (USD), split into the accelerator SKUs and the host (cores, RAM, disk) around them, and the accelerator-hours paid.
-- @grain day: hour
-- @col project_id: Project of the resource.
-- @col resource_name: The VM or TPU node as billed.
-- @col hour: UTC hour (start).
-- @col accelerator_type: Canonical accelerator type (H100-80GB, TPU-v5p, ...).
-- @col billed_cost: Billed cost of every row of the resource in the hour (USD).
-- @col credits_total: Credits (USD, zero or negative): effective_cost - billed_cost.
-- @col effective_cost: billed_cost + credits_total (USD).
-- @col list_cost: Cost at list price (USD).
-- @col accelerator_effective_cost: Effective cost of the accelerator SKU rows (USD).
-- @col host_effective_cost: Effective cost of the other rows of the resource: cores, RAM, disk (USD).
-- @col paid_accelerator_seconds: Accelerator-seconds paid (from the accelerator SKUs' usage).
-- @col paid_accelerator_hours: paid_accelerator_seconds / 3600.
SELECT
    project_id,
    resource_name,
    hour,
    accelerator_type,
    from_nanos(billed_nanos) AS billed_cost,
    from_nanos(effective_nanos - billed_nanos) AS credits_total,
    from_nanos(effective_nanos) AS effective_cost,
    from_nanos(list_nanos) AS list_cost,
    from_nanos(accelerator_effective_nanos) AS accelerator_effective_cost,
    from_nanos(effective_nanos - accelerator_effective_nanos) AS host_effective_cost,
    from_nanos(paid_accelerator_nanos) AS paid_accelerator_seconds,
    CAST(paid_accelerator_nanos AS DOUBLE) / 3.6e12 AS paid_accelerator_hours
FROM resource_hour_pool
WHERE paid_accelerator_nanos > 0 OR accelerator_type IS NOT NULL
ORDER BY project_id, resource_name, hour
