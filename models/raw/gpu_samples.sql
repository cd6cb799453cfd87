-- @table: One GPU for one UTC minute on one node, from the NVML agent's spool files (means and maxima over that minute's readings, counters as deltas).
-- @grain day: minute
-- @check gpu_samples_fresh (warn): gpu_samples keeps up with the bill.
CREATE TABLE IF NOT EXISTS gpu_samples (
    sample_id VARCHAR NOT NULL,       -- Stable hash of node, GPU UUID and minute: reloading a spool file changes nothing.
    minute TIMESTAMP NOT NULL,           -- Start of the minute (UTC).
    node VARCHAR NOT NULL,               -- Node (host) name from the node-labels file, else the host name.
    project_id VARCHAR,                  -- Cloud project that bills the node; joins to billing.
    resource_name VARCHAR,               -- Billed VM name (as in the billing export); joins to billing.
    gpu_uuid VARCHAR,                    -- NVML GPU UUID; null only for a GPU lost before it could be read.
    gpu_index INTEGER NOT NULL,          -- NVML device index on the node.
    gpu_name VARCHAR,                    -- NVML product name, e.g. NVIDIA H100 80GB HBM3.
    util_gpu_pct DOUBLE,                 -- Mean NVML utilization.gpu: percent of time a kernel ran.
    util_gpu_max_pct DOUBLE,             -- Highest utilization.gpu reading in the minute.
    util_mem_pct DOUBLE,                 -- Mean NVML utilization.memory: percent of time memory was read or written.
    mem_used_bytes BIGINT,               -- Mean device memory used, bytes.
    mem_used_max_bytes BIGINT,           -- Highest device memory used, bytes.
    mem_total_bytes BIGINT,              -- Device memory size, bytes.
    power_w DOUBLE,                      -- Mean board power draw, watts.
    power_max_w DOUBLE,                  -- Highest power reading, watts.
    energy_j DOUBLE,                     -- Energy in the minute: delta of the total-energy counter, joules (never negative; a counter reset restarts from zero).
    sm_clock_mhz DOUBLE,                 -- Mean SM clock, MHz.
    mem_clock_mhz DOUBLE,                -- Mean memory clock, MHz.
    clock_event_reasons BIGINT,          -- Bitwise OR of NVML clock-event (throttle) reasons seen in the minute (1 idle, 4 SW power cap, 8 HW slowdown, 32 SW thermal, 64 HW thermal, 128 HW power brake).
    tensor_active_pct DOUBLE,            -- Mean GPM any-tensor activity, percent (Hopper and newer; null where unsupported).
    sm_active_pct DOUBLE,                -- Mean GPM SM activity, percent (null where unsupported).
    sm_occupancy_pct DOUBLE,             -- Mean GPM SM occupancy (active warps vs maximum), percent (null where unsupported).
    dram_bw_util_pct DOUBLE,             -- Mean GPM DRAM bandwidth used vs peak, percent (null where unsupported).
    xid_errors BIGINT,                   -- XID critical-error events in the minute (null where events are unsupported).
    ecc_errors BIGINT,                   -- New volatile ECC errors (corrected + uncorrected) in the minute (null where ECC is off).
    compute_processes_max BIGINT,        -- Most compute processes seen on the GPU in the minute.
    samples BIGINT NOT NULL,             -- Good readings behind the row (60 for a full minute at 1 Hz).
    status VARCHAR NOT NULL,             -- ok; lost (GPU fell off the bus during the minute); not_supported (a core counter gave nothing all minute).
    pod_namespace VARCHAR,               -- Kubernetes namespace of the pod that held the GPU in the minute (kubelet PodResources API); null off Kubernetes, when no pod held it, or when MIG slices of it went to several pods.
    pod_name VARCHAR,                    -- Name of that pod (null as for pod_namespace).
    pod_uid VARCHAR                      -- UID of that pod: tells apart two pods of the same name minutes apart (null as for pod_namespace).
);
