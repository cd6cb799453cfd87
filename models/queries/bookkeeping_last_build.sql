-- @query: A model's last build (none: never built): the SQL it was built with and the last change
--   it took in, with the newest change recorded since (the seq a build now takes in).
-- @param table_name: the model.
SELECT b.sql_hash, b.through_seq
FROM bookkeeping.builds AS b
WHERE b.table_name = $table_name
