-- @table: One TPU chip (accelerator_id) in one UTC minute, from Cloud Monitoring: the five accelerator metrics pivoted into columns, null where a metric had no point.
-- @grain day: minute
-- @check tpu_samples_fresh (warn): tpu_samples keeps up with the bill.
CREATE TABLE IF NOT EXISTS tpu_samples (
    sample_id VARCHAR NOT NULL,    -- Stable id: hash of project, zone, node/resource, worker, accelerator and resource type, then '-' and the minute (YYYYMMDDTHHMM); reloads replace, never duplicate.
    minute TIMESTAMP NOT NULL,        -- Start of the UTC minute the readings cover (an aligned point ending at 10:02:00 covers minute 10:01).
    project_id VARCHAR,               -- Billed project id; the project number (resource_container) for a GceTpuWorker series the inventory does not know.
    zone VARCHAR,                     -- Zone of the TPU node (tpu_worker zone, GceTpuWorker location, k8s_node location).
    node_id VARCHAR,                  -- TPU node name (tpu_worker node_id, or from the inventory for GceTpuWorker), or the GKE node name; null when unmapped.
    resource_name VARCHAR,            -- The resource as billed (the bill's resource.name): the TPU node name, or the GKE node VM; null when unmapped.
    worker_id VARCHAR,                -- Worker (host) within the node; null for GKE k8s_node series.
    accelerator_id VARCHAR NOT NULL,  -- Chip within the worker, as the metric label accelerator_id spells it.
    monitored_resource_type VARCHAR NOT NULL, -- Monitored resource type of the series: tpu_worker, tpu.googleapis.com/GceTpuWorker or k8s_node.
    duty_cycle_pct DOUBLE,            -- accelerator/duty_cycle: percent of the minute the chip was busy (0-100), 60 s mean.
    tensorcore_util_pct DOUBLE,       -- accelerator/tensorcore_utilization: TensorCore utilisation percent (0-100), 60 s mean.
    hbm_bw_util_pct DOUBLE,           -- accelerator/memory_bandwidth_utilization: HBM bandwidth utilisation percent (0-100), 60 s mean.
    hbm_used_bytes BIGINT,            -- accelerator/memory_used: HBM in use, bytes, 60 s mean rounded to a whole byte.
    hbm_total_bytes BIGINT            -- accelerator/memory_total: HBM capacity, bytes.
);
