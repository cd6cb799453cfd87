-- @table: One run, resource and UTC hour: how busy the accelerators it held were, the cost of holding them idle (allocated idle), and its share of the GPU energy. On Kubernetes, where the NVML agent labelled the GPU minutes with the pods holding them (pod_gpu_hourly), a run's busy fraction is its own pods' on that node and hour; elsewhere (a run none of whose pods' minutes are there, or one holding MIG slices, whose GPU's minutes measure the whole GPU) it is the resource-hour's held busy fraction, the same for every run on it.
-- @grain day: hour
-- @col run_id: The run.
-- @col project_id: Project of the resource.
-- @col resource_name: The resource.
-- @col hour: UTC hour (start).
-- @col held_accelerator_seconds: Accelerator-seconds the run held.
-- @col covered_accelerator_seconds: Of those, the part with telemetry (held x the resource-hour's coverage).
-- @col busy_accelerator_seconds: held x busy fraction (null without telemetry).
-- @col busy_micros: The busy fraction used, in millionths (0 to 1,000,000): its pods' busy / observed GPU-seconds (pod_gpu_hourly) where busy_basis is pod, else the resource-hour's held_busy_micros; null without telemetry.
-- @col busy_basis: pod (the run's own pods' labelled GPU minutes on this resource-hour) or resource_hour (the resource-hour's average, for every run on it); null without telemetry.
-- @col allocated_idle_nanos: floor(allocated cost x (1 - busy fraction)) in nano-USD: held but not busy (null without telemetry).
-- @col energy_j: The run's share of the resource-hour's GPU energy (its cost share), joules.
WITH run_pods AS (
    -- A Kubernetes run's pods (collectors/kubernetes/runs.py: labels k8s_namespace and k8s_pods).
    -- k8s_pods is cut at 1,000 characters: a list that long may end in a cut name, so its
    -- last name is not used (that pod's run-hours keep the resource-hour's fraction).
    SELECT DISTINCT j.run_id, j.labels['k8s_namespace'] AS pod_namespace, t.pod_name
    FROM jobs AS j,
        unnest(CASE WHEN length(j.labels['k8s_pods']) >= 1000
                    THEN string_split(j.labels['k8s_pods'], ',')[:-2]
                    ELSE string_split(j.labels['k8s_pods'], ',') END) AS t(pod_name)
    WHERE j.scheduler = 'kubernetes' AND j.labels['k8s_namespace'] IS NOT NULL AND t.pod_name <> ''
      -- Not MIG runs: a pod alone on a GPU's slices has the whole GPU's minutes, whose
      -- activity is not its slice's (one busy 1g slice is about 1/7 of the GPU's SMs).
      AND NOT EXISTS (
          SELECT 1 FROM job_placements AS p
          WHERE p.run_id = j.run_id AND coalesce(p.share_numerator, 1) <> coalesce(p.share_denominator, 1)
      )
),
pod_busy AS (
    SELECT
        a.run_id,
        a.project_id,
        a.resource_name,
        a.hour,
        -- exact decimal sums: the same digits whatever order the threads add in (reruns)
        sum(CAST(g.observed_gpu_seconds AS DECIMAL(38, 12))) AS observed_s,
        sum(CAST(g.busy_gpu_seconds AS DECIMAL(38, 12))) AS busy_s
    FROM run_allocation AS a
    JOIN run_pods AS r ON r.run_id = a.run_id
    JOIN pod_gpu_hourly AS g
        ON g.pod_namespace = r.pod_namespace AND g.pod_name = r.pod_name
       AND g.resource_name = a.resource_name AND g.hour = a.hour
       AND (g.project_id = a.project_id OR g.project_id IS NULL OR a.project_id IS NULL)
    GROUP BY a.run_id, a.project_id, a.resource_name, a.hour
    HAVING sum(g.observed_gpu_seconds) > 0
),
fractions AS (
    SELECT
        a.*,
        u.telemetry_coverage,
        u.energy_j AS resource_energy_j,
        CASE WHEN p.observed_s > 0
             THEN CAST(round(least(p.busy_s / p.observed_s, 1) * 1000000) AS BIGINT)
             ELSE u.held_busy_micros END AS busy_micros,
        CASE WHEN p.observed_s > 0 THEN 'pod'
             WHEN u.held_busy_micros IS NOT NULL THEN 'resource_hour' END AS busy_basis
    FROM run_allocation AS a
    LEFT JOIN resource_hour_utilisation AS u USING (project_id, resource_name, hour)
    LEFT JOIN pod_busy AS p
        ON p.run_id = a.run_id AND p.project_id IS NOT DISTINCT FROM a.project_id
       AND p.resource_name = a.resource_name AND p.hour = a.hour
)
SELECT
    run_id,
    project_id,
    resource_name,
    hour,
    held_accelerator_seconds,
    held_accelerator_seconds * coalesce(telemetry_coverage, 0) AS covered_accelerator_seconds,
    held_accelerator_seconds * busy_micros / 1e6 AS busy_accelerator_seconds,
    busy_micros,
    busy_basis,
    CASE WHEN busy_micros IS NOT NULL
         THEN floor_div(allocated_nanos * (1000000 - busy_micros), 1000000) END AS allocated_idle_nanos,
    resource_energy_j * share AS energy_j
FROM fractions
