-- @query: Records that a table's rows of some UTC days changed (bookkeeping.changes), under the
--   next change number.
-- @param table_name: the table that changed.
-- @param days: the UTC days whose rows changed (DATE[]).
INSERT INTO bookkeeping.changes (seq, table_name, day, recorded_at)
SELECT s.seq + 1, $table_name, d.day, CAST(current_timestamp AS TIMESTAMP)
FROM (
    SELECT greatest(
        coalesce((SELECT max(seq) FROM bookkeeping.changes), 0),
        coalesce((SELECT max(through_seq) FROM bookkeeping.builds), 0)
    ) AS seq
) AS s
CROSS JOIN (SELECT unnest(CAST($days AS DATE[])) AS day) AS d
