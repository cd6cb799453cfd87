-- @query: Forgets a model's last build record (bookkeeping.builds) before bookkeeping_mark_built
--   writes the new one; between the two the model reads as never built, so a build stopped there
--   is rebuilt whole next time (DuckDB cannot prepare a MERGE, BigQuery runs one statement a call).
-- @param table_name: the model.
DELETE FROM bookkeeping.builds WHERE table_name = $table_name
