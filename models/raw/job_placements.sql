-- @table: Which run held which resource (VM or TPU node), how many of its accelerators, from when to when.
-- @grain day (read whole): start_at .. end_at
CREATE TABLE IF NOT EXISTS job_placements (
    placement_id VARCHAR NOT NULL,  -- Hash of run, resource and window.
    run_id VARCHAR NOT NULL,           -- The run (jobs.run_id).
    project_id VARCHAR,                -- Project of the resource when known (null: match the resource name in any project).
    resource_name VARCHAR NOT NULL,    -- The resource as the bill names it (resource.name): VM or TPU node.
    accelerators INTEGER NOT NULL,     -- Accelerators of that resource the run held (GPUs or TPU chips), or MIG slices of one profile.
    share_numerator INTEGER,           -- Share of each accelerator held, numerator: a MIG slice 1g.10gb of an H100 holds 1/7 (null: 1, the whole accelerator).
    share_denominator INTEGER,         -- Share of each accelerator held, denominator (null: 1). Held accelerator-seconds = accelerators x numerator / denominator x seconds.
    start_at TIMESTAMP,                -- Start of the hold (UTC); defaults to the run's start.
    end_at TIMESTAMP,                  -- End of the hold (UTC); null while the run is running.
    submitted_day DATE                 -- The run's partition day (UTC day of submission).
);
