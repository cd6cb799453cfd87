-- @query: The changes to the tables a model reads since its last build: one row per day that
--   changed (day null: a table changed whole). What warehouse/incremental.py rebuilds from.
-- @param tables: the tables the model reads (VARCHAR[]).
-- @param since: the last change its last build took in (bookkeeping.builds.through_seq).
SELECT DISTINCT day
FROM bookkeeping.changes
WHERE list_contains(CAST($tables AS VARCHAR[]), table_name) AND seq > $since
