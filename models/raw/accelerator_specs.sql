-- @table: One accelerator type and dtype: its peak dense TFLOP/s from the vendor's spec sheet (accelerators/table.py), what MFU against spec is measured against.
CREATE TABLE IF NOT EXISTS accelerator_specs (
    accelerator_type VARCHAR NOT NULL,  -- Canonical accelerator type shared with billing, jobs and probes (H100-80GB, TPU-v5p, ...).
    dtype VARCHAR NOT NULL,             -- Matmul dtype: fp8, bf16, fp16, tf32 or fp32.
    peak_tflops_spec DOUBLE NOT NULL,   -- Peak dense (no structured sparsity) TFLOP/s per accelerator (GPU or TPU chip).
    source VARCHAR,                     -- The document the number comes from.
    PRIMARY KEY (accelerator_type, dtype)
);
