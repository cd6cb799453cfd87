-- @query: Records what a source's input files held (bookkeeping.input_files), after
--   input_files_forget: one row per file.
-- @param source: the source.
-- @param entries: one JSON text per file: its uri, fingerprint and days (VARCHAR[]).
INSERT INTO bookkeeping.input_files (source, entry, recorded_at)
SELECT $source, e.entry, CAST(current_timestamp AS TIMESTAMP)
FROM (SELECT unnest(CAST($entries AS VARCHAR[])) AS entry) AS e
