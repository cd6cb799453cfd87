-- @query: The newest UTC day a write to one of `tables` (the raw tables the sources load) has
--   recorded as changed (NULL: nothing loaded yet): the month of the newest data, from which a
--   settings change takes effect (a model's rows, or the settings' own, never move it).
-- @param tables: the tables whose days count (VARCHAR[]).
SELECT max(day) AS newest_day
FROM bookkeeping.changes
WHERE list_contains(CAST($tables AS VARCHAR[]), table_name)
