-- @query: Tables in the warehouse's default schema (which optional marts exist yet).
SELECT table_name
FROM information_schema.tables
WHERE table_schema = 'main' AND table_catalog = current_database()
ORDER BY table_name
