-- @table: One `flopledger restate --from DAY`, kept across runs: when, which days it rebuilt and which settings it moved. The closed months it changed are in closed_month_changes (their cause names the restatement).
CREATE TABLE IF NOT EXISTS restatements (
    restatement_id VARCHAR PRIMARY KEY, -- Stable id: the first day and when (restate --from <day> @ <time>).
    restated_at TIMESTAMP NOT NULL,     -- When it ran (UTC, the command's clock).
    from_day DATE NOT NULL,             -- First UTC day restated (--from).
    through_day DATE NOT NULL,          -- Last UTC day rebuilt: the newest day loaded then.
    settings_changed VARCHAR            -- Each setting it moved, old -> new ('; ' between); null: none, the days only rebuilt.
);
