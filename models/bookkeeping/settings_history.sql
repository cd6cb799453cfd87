-- @table: One allocation setting's value from a UTC day on, written by the pipeline from flopledger.yaml (ingest/settings_history.py): a change to the config takes effect from the first day of the open month (the month of the newest day the warehouse holds), never earlier, unless `flopledger restate --from DAY` moves it; the models that apply settings read the value in force on each day (billing_hourly) or at each month's end (team_chargeback). flopledger_settings shows the current values.
-- @grain day (read whole): effective_from
CREATE TABLE IF NOT EXISTS settings_history (
    key VARCHAR NOT NULL,          -- Setting name, as in flopledger_settings (run_label_key, chargeback_policy, chargeback_key:<team>, ...).
    value VARCHAR,                 -- Its value from effective_from on; null: the setting was removed (the models' default applies).
    effective_from DATE,           -- First UTC day the value is in force; null: since the start (the settings first recorded).
    recorded_at TIMESTAMP NOT NULL, -- When the pipeline recorded it (UTC, the run's clock).
    reason VARCHAR NOT NULL        -- Why: first recorded, config changed (from the open month), or restate --from <day>.
);
