-- @table: One migration of models/migrations/ this warehouse has had: applied to its tables, or recorded as not needed (the warehouse was made with the final shape, or has no such table). Written once per migration, in the same transaction as the change.
CREATE TABLE IF NOT EXISTS migrations (
    migration VARCHAR NOT NULL,     -- The migration's file name (models/migrations/NNNN_what.sql): the order they run in.
    description VARCHAR NOT NULL,   -- What it changes and why (its header).
    outcome VARCHAR NOT NULL,       -- applied, or not needed (and why).
    applied_at TIMESTAMP NOT NULL,  -- When (UTC, wall clock).
    flopledger_version VARCHAR      -- The version that applied it.
);
