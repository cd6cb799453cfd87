-- @table: One resource and UTC hour with accelerator telemetry: how many accelerator-seconds were observed and how many of them were busy (GPU: GPM SM or tensor activity where present, else utilization.gpu; TPU: TensorCore utilisation, else duty cycle), and GPU energy.
-- @grain day: hour
-- @col project_id: Project of the resource (null when the telemetry did not say).
-- @col resource_name: The VM or TPU node as billed.
-- @col hour: UTC hour (start).
-- @col observed_accelerator_seconds: Accelerator-minutes with a reading x 60.
-- @col busy_accelerator_seconds: Sum over accelerator-minutes of the busy fraction x 60.
-- @col busy_source: The figure behind most minutes: gpm_sm_active, gpm_tensor_active, nvml_util_gpu, tpu_tensorcore_util or tpu_duty_cycle (of figures behind as many, the first in that order).
-- @col energy_j: GPU energy in the hour, joules (null for TPUs).
-- @col accelerators_seen: Distinct accelerators with readings.
WITH gpu AS (
    SELECT
        project_id,
        resource_name,
        date_trunc('hour', minute) AS hour,
        gpu_uuid AS accelerator,
        CASE WHEN status = 'ok' THEN greatest(sm_active_pct, tensor_active_pct) END AS gpm_pct,
        CASE WHEN status = 'ok' THEN util_gpu_pct END AS util_pct,
        CASE WHEN sm_active_pct >= coalesce(tensor_active_pct, -1) THEN 'gpm_sm_active' ELSE 'gpm_tensor_active' END AS gpm_source,
        energy_j
    FROM gpu_samples
    WHERE resource_name IS NOT NULL
),
gpu_minutes AS (
    SELECT
        project_id, resource_name, hour, accelerator, energy_j,
        coalesce(gpm_pct, util_pct) AS busy_pct,
        CASE WHEN gpm_pct IS NOT NULL THEN gpm_source WHEN util_pct IS NOT NULL THEN 'nvml_util_gpu' END AS busy_source
    FROM gpu
),
tpu_minutes AS (
    SELECT
        project_id,
        resource_name,
        date_trunc('hour', minute) AS hour,
        concat(coalesce(worker_id, ''), '/', coalesce(accelerator_id, '')) AS accelerator,
        CAST(NULL AS DOUBLE) AS energy_j,
        coalesce(tensorcore_util_pct, duty_cycle_pct) AS busy_pct,
        CASE WHEN tensorcore_util_pct IS NOT NULL THEN 'tpu_tensorcore_util'
             WHEN duty_cycle_pct IS NOT NULL THEN 'tpu_duty_cycle' END AS busy_source
    FROM tpu_samples
    WHERE resource_name IS NOT NULL
),
minutes AS (
    SELECT * FROM gpu_minutes
    UNION ALL
    SELECT * FROM tpu_minutes
),
hours AS (
    SELECT
        project_id,
        resource_name,
        hour,
        60.0 * count(busy_pct) AS observed_accelerator_seconds,
        -- Float sums are added as exact decimals (12 and 6 places), so that the order DuckDB's
        -- threads add them in cannot change the last digit: reruns are byte-identical.
        60.0 * CAST(sum(CAST(least(greatest(busy_pct, 0), 100) / 100.0 AS DECIMAL(38, 12))) AS DOUBLE) AS busy_accelerator_seconds,
        -- minutes by figure, counted apart (not mode(), whose pick among ties can change on a rerun)
        count(*) FILTER (WHERE busy_source = 'gpm_sm_active') AS sm,
        count(*) FILTER (WHERE busy_source = 'gpm_tensor_active') AS tensor,
        count(*) FILTER (WHERE busy_source = 'nvml_util_gpu') AS util,
        count(*) FILTER (WHERE busy_source = 'tpu_tensorcore_util') AS tensorcore,
        count(*) FILTER (WHERE busy_source = 'tpu_duty_cycle') AS duty,
        CAST(sum(CAST(energy_j AS DECIMAL(38, 6))) AS DOUBLE) AS energy_j,
        count(DISTINCT accelerator) AS accelerators_seen
    FROM minutes
    GROUP BY project_id, resource_name, hour
)
SELECT
    project_id,
    resource_name,
    hour,
    observed_accelerator_seconds,
    busy_accelerator_seconds,
    CASE greatest(sm, tensor, util, tensorcore, duty)
        WHEN 0 THEN NULL
        WHEN sm THEN 'gpm_sm_active'
        WHEN tensor THEN 'gpm_tensor_active'
        WHEN util THEN 'nvml_util_gpu'
        WHEN tensorcore THEN 'tpu_tensorcore_util'
        ELSE 'tpu_duty_cycle'
    END AS busy_source,
    energy_j,
    accelerators_seen
FROM hours
