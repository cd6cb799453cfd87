-- @table: One input row that could not be read, with where it came from and why. Bad input never stops a run and is never dropped silently.
CREATE TABLE IF NOT EXISTS quarantine (
    quarantine_id VARCHAR PRIMARY KEY, -- Stable hash of source, file, line and raw text: the same bad row read twice is one row.
    source VARCHAR NOT NULL,           -- Source name from flopledger.yaml (gcp_billing, jobs, nvml_spool, ...).
    file VARCHAR,                      -- File the row came from.
    line BIGINT,                       -- 1-based line (NDJSON/CSV) or row index (Parquet) in that file; null for a whole-file problem.
    reason VARCHAR NOT NULL,           -- Why the row was refused, in words.
    raw VARCHAR,                       -- The row's raw text (or a JSON rendering of a Parquet row).
    quarantined_at TIMESTAMP DEFAULT (now()::TIMESTAMP) -- When it was first quarantined (UTC).
);
