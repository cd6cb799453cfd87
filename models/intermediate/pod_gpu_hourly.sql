-- @table: One Kubernetes pod (or no pod) on one node and UTC hour: the GPU time it held, how much of it was busy and how much sat idle while allocated, from the NVML agent's pod labels (kubelet PodResources API). Rows with no pod are the node's GPU time no single pod held: GPUs nobody held (unallocated), and also GPUs in MIG mode whose slices went to more than one pod (the agent writes one row per GPU, not per MIG slice, and cannot split the GPU's minute between them), which were allocated. Per node and hour, observed + unobserved seconds over all rows = GPUs seen x 3,600 when every minute has a row.
-- @grain day: hour
-- @check pod_hours_close (error, blocking): Per node-hour, the pods' and the no-pod row's GPU seconds are the telemetry's.
-- @col project_id: Project of the node (null when the telemetry did not say).
-- @col resource_name: The VM as billed (null when the node labels did not say).
-- @col node: Node name the agent reported.
-- @col hour: UTC hour (start).
-- @col pod_namespace: Namespace of the pod that held the GPUs; null for GPU time no pod held, for GPUs whose MIG slices several pods shared, and off Kubernetes.
-- @col pod_name: Name of that pod; null as for pod_namespace.
-- @col pod_uid: UID of that pod (two pods of one name are two rows); null as for pod_namespace, or when the API server did not say.
-- @col gpus: Distinct GPUs the pod held in the hour.
-- @col observed_gpu_seconds: GPU-minutes with a reading x 60.
-- @col busy_gpu_seconds: Sum over GPU-minutes of the busy fraction x 60 (GPM SM or tensor activity where present, else utilization.gpu; as resource_hour_busy).
-- @col idle_gpu_seconds: observed_gpu_seconds - busy_gpu_seconds: allocated idle for a pod; for the no-pod row unallocated idle, except the part on GPUs whose MIG slices several pods shared.
-- @col unobserved_gpu_seconds: GPU-minutes with a row but no reading (GPU lost, core counter unsupported) x 60.
-- @col busy_fraction: busy_gpu_seconds / observed_gpu_seconds (null with no reading).
WITH minutes AS (
    SELECT
        project_id,
        resource_name,
        node,
        date_trunc('hour', minute) AS hour,
        pod_namespace,
        pod_name,
        pod_uid,
        gpu_index,
        CASE WHEN status = 'ok'
             THEN coalesce(greatest(sm_active_pct, tensor_active_pct), util_gpu_pct) END AS busy_pct
    FROM gpu_samples
),
pods AS (
    SELECT
        project_id,
        resource_name,
        node,
        hour,
        pod_namespace,
        pod_name,
        pod_uid,
        count(DISTINCT gpu_index) AS gpus,
        CAST(60 * count(busy_pct) AS DOUBLE) AS observed_gpu_seconds,
        -- an exact decimal sum: the same digits whatever order the threads add in (reruns)
        60.0 * coalesce(CAST(sum(CAST(least(greatest(busy_pct, 0), 100) / 100.0 AS DECIMAL(38, 12))) AS DOUBLE), 0.0) AS busy_gpu_seconds,
        CAST(60 * (count(*) - count(busy_pct)) AS DOUBLE) AS unobserved_gpu_seconds
    FROM minutes
    GROUP BY project_id, resource_name, node, hour, pod_namespace, pod_name, pod_uid
)
SELECT
    project_id,
    resource_name,
    node,
    hour,
    pod_namespace,
    pod_name,
    pod_uid,
    gpus,
    observed_gpu_seconds,
    busy_gpu_seconds,
    observed_gpu_seconds - busy_gpu_seconds AS idle_gpu_seconds,
    unobserved_gpu_seconds,
    CASE WHEN observed_gpu_seconds > 0 THEN busy_gpu_seconds / observed_gpu_seconds END AS busy_fraction
FROM pods
