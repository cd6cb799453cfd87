-- @query: Every recorded value of every setting, with its first day (null: since the start),
--   when it was recorded and why (ingest/settings_history.py reads them to compare the config).
SELECT key, value, effective_from, recorded_at, reason
FROM settings_history
ORDER BY key, effective_from NULLS FIRST
