-- @table: One model's last build: the SQL it was built with, the last change it has taken in, and what it rebuilt. A model whose SQL changed since, or that was never built, is rebuilt whole.
CREATE TABLE IF NOT EXISTS builds (
    table_name VARCHAR NOT NULL,    -- The model (an intermediate table or mart).
    sql_hash VARCHAR NOT NULL,      -- sha256 of the model's SQL at that build.
    through_seq BIGINT NOT NULL,    -- The last change (changes.seq) the build took in.
    scope VARCHAR NOT NULL,         -- What it rebuilt: whole, nothing, or the days (first .. last) or runs.
    rows_written BIGINT NOT NULL,   -- Rows it wrote.
    built_at TIMESTAMP NOT NULL     -- When (UTC, wall clock).
);
