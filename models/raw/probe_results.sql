-- @table: One probe measurement: a verified matmul sweep point (one node, device, dtype and shape) with its achieved and spec-peak TFLOP/s, from the probe CLI's JSONL.
-- @grain day (read whole): measured_at
-- @check probe_results_verified (warn): Every probe of the last 7 days (to the newest result) matched its reference.
CREATE TABLE IF NOT EXISTS probe_results (
    result_id VARCHAR NOT NULL,   -- Stable hash of node, measured_at, device_index, dtype, m, n, k: the same line ingested twice is one row.
    measured_at TIMESTAMP NOT NULL,  -- When this shape's probe started (UTC).
    node VARCHAR NOT NULL,           -- Host the probe ran on (as the NVML agent and the bill name it).
    device_index BIGINT NOT NULL,    -- Index of the device among those JAX saw on the host (0-based).
    device_kind VARCHAR,             -- What JAX calls the device, e.g. 'NVIDIA H100 80GB HBM3', 'TPU v5 lite', 'cpu'.
    accelerator_type VARCHAR,        -- Canonical accelerator type shared with billing and jobs (H100-80GB, TPU-v5e, ...); null for CPUs and unknown kinds.
    backend VARCHAR NOT NULL,        -- JAX backend the sweep ran on: cpu, gpu or tpu.
    dtype VARCHAR NOT NULL,          -- Matmul dtype: bf16, fp16, tf32 (fp32 storage, TF32 tensor cores) or fp32 (full precision).
    m BIGINT NOT NULL,               -- Rows of A and C.
    n BIGINT NOT NULL,               -- Columns of B and C.
    k BIGINT NOT NULL,               -- Inner (reduction) dimension; one product is 2*m*n*k FLOPs.
    iterations BIGINT,               -- Timed kernel calls behind the numbers (after compile and warm-up).
    achieved_tflops DOUBLE,          -- Best sample's TFLOP/s (the measured ceiling at this shape); null unless verified.
    median_tflops DOUBLE,            -- Median sample's TFLOP/s; null unless verified.
    spread_pct DOUBLE,               -- (slowest - fastest) / fastest sample time, in percent: timing noise and throttling.
    peak_tflops_spec DOUBLE,         -- Peak dense TFLOP/s for this accelerator and dtype (spec sheet; for CPUs an estimate, see peak_source); null when unknown.
    peak_source VARCHAR,             -- Where peak_tflops_spec comes from: the vendor document, or how a CPU estimate was measured.
    efficiency DOUBLE,               -- achieved_tflops / peak_tflops_spec, a fraction (0.8 = 80% of spec); null when either is unknown.
    window_s DOUBLE,                 -- Wall time of the timed samples (the energy window), in seconds.
    energy_j DOUBLE,                 -- GPU energy over the timed window from NVML's total-energy counter, in joules; null where not metered.
    tflops_per_w DOUBLE,             -- FLOPs done in the timed window / energy_j, in TFLOP/s per watt (TFLOP per joule); null without energy.
    verified BOOLEAN NOT NULL,       -- The product matched a float64 reference (sampled entries) and a Freivalds check (all rows); false means a wrong answer or an error.
    verify_error_ratio DOUBLE,       -- Worst |error| / tolerance seen in verification (below 1 passes); null when the output was not finite or not checked.
    failure VARCHAR,                 -- Why the probe failed (wrong answer, out of memory, ...); null when verified.
    jax_version VARCHAR,             -- JAX version that ran the sweep.
    probe_version VARCHAR NOT NULL   -- Version of the probe code (probes.PROBE_VERSION).
);
