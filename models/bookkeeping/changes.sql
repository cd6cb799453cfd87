-- @table: One table's change, as the write that made it recorded it: a UTC day whose rows changed, or (day null) the table as a whole. What an incremental build reads to know what to rebuild (warehouse/incremental.py); the warehouse's own bookkeeping, apart from the tables people read.
CREATE TABLE IF NOT EXISTS changes (
    seq BIGINT NOT NULL,            -- Order of the write that recorded it (increasing; one write, one seq).
    table_name VARCHAR NOT NULL,    -- The table that changed (raw, intermediate or mart).
    day DATE,                       -- The UTC day whose rows changed; null: the whole table changed.
    recorded_at TIMESTAMP NOT NULL  -- When it was recorded (UTC, wall clock).
);
