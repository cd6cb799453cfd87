-- @table: One run: one attempt of a job (a retry is a run of its own), from the jobs file or Slurm's sacct --json.
-- @grain day (read whole): coalesce(submitted_at, started_at) .. ended_at
CREATE TABLE IF NOT EXISTS jobs (
    run_id VARCHAR NOT NULL,        -- Unique id of the run (attempt); billing rows labelled run_id=<this> go wholly to it.
    job_id VARCHAR,                    -- The job the run is an attempt of.
    attempt INTEGER,                   -- 1 for the first attempt, 2 for the first retry, ...
    team VARCHAR,                      -- Team that owns the run (Slurm: the account).
    project_id VARCHAR,                -- Cloud project the run ran in (null when the scheduler does not know).
    workload_class VARCHAR,            -- pretraining, post_training, rl_eval, online_inference, batch_inference or other.
    experiment_id VARCHAR,             -- Experiment the run belongs to.
    model_name VARCHAR,                -- Model trained or served.
    model_params BIGINT,               -- Model parameters (count).
    model_flops DOUBLE,                -- Optional override of the run's model FLOPs (FLOP); null: derived from params and tokens.
    submitted_at TIMESTAMP,            -- When the run was submitted (UTC).
    started_at TIMESTAMP,              -- When it started (UTC); null if it never started.
    ended_at TIMESTAMP,                -- When it ended (UTC); null while running.
    status VARCHAR,                    -- succeeded, failed, cancelled or running.
    accelerator_type VARCHAR,          -- Canonical accelerator type (H100-80GB, TPU-v5p, ...), the names billing uses.
    accelerator_count INTEGER,         -- Accelerators the run asked for, over all its hosts (MIG slices count one each: job_placements has their share).
    tokens_in BIGINT,                  -- Tokens read (training tokens, or prompt tokens for inference).
    tokens_out BIGINT,                 -- Tokens written (generated tokens for inference; 0 or null for training).
    labels MAP(VARCHAR, VARCHAR),      -- Free-form labels of the run.
    scheduler VARCHAR,                 -- Where the record came from: jobs_file, slurm or kubernetes.
    submitted_day DATE,                -- UTC day of submitted_at: the partition.
    source VARCHAR,                    -- File the record was read from.
    source_line BIGINT                 -- Line or row in that file, 1-based.
);
