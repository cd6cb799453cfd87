-- @query: Records that a table changed as a whole (bookkeeping.changes, day null): every model
--   reading it rebuilds whole.
-- @param table_name: the table that changed.
INSERT INTO bookkeeping.changes (seq, table_name, day, recorded_at)
SELECT greatest(
    coalesce((SELECT max(seq) FROM bookkeeping.changes), 0),
    coalesce((SELECT max(through_seq) FROM bookkeeping.builds), 0)
) + 1, $table_name, CAST(NULL AS DATE), CAST(current_timestamp AS TIMESTAMP)
