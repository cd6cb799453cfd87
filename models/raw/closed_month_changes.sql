-- @table: One figure of a closed month (its report's settle days passed) that a run changed, kept across runs: a late billing row, or a restatement (`flopledger restate`). The month close's next revision says why from these rows (reports/month.py).
CREATE TABLE IF NOT EXISTS closed_month_changes (
    change_id VARCHAR PRIMARY KEY, -- Stable id: month, figure and when it was recorded.
    month DATE NOT NULL,           -- First day of the closed calendar month (UTC).
    figure VARCHAR NOT NULL,       -- The figure, as the month report's totals name it (e.g. chargeback llm total_cost).
    before_value DECIMAL(38, 12),  -- Its value before the run (USD); null: the row did not exist.
    after_value DECIMAL(38, 12),   -- Its value after the run (USD); null: the row is gone.
    cause VARCHAR NOT NULL,        -- Why: "run: rows arrived for a closed month" or "restate --from <day>: <settings>".
    recorded_at TIMESTAMP NOT NULL -- When the run recorded it (UTC, the run's clock).
);
