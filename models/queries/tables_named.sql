-- @query: One row: how many warehouse tables have a given name (0 or 1).
-- @param table_name: the table's name.
SELECT count(*) AS n FROM information_schema.tables WHERE table_name = $table_name
