-- @table: One input file a source read the last time it changed, for the sources that would otherwise read every file every run (managed inference's gateway logs and provider pages): its fingerprint and the UTC days its rows fall on, so a day's run reads the new and changed files and those holding their days, not the whole history (ingest/file_marks.py).
CREATE TABLE IF NOT EXISTS input_files (
    source VARCHAR NOT NULL,        -- The source (its key under `sources:`).
    entry VARCHAR NOT NULL,         -- JSON: the file's uri, its fingerprint (size and generation or modification time) and the days it held.
    recorded_at TIMESTAMP NOT NULL  -- When it was recorded (UTC, wall clock).
);
