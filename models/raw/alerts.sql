-- @table: One alert, raised once under a stable id and kept across runs (never rebuilt): budget thresholds, forecast overruns, spend changes, efficiency and health.
CREATE TABLE IF NOT EXISTS alerts (
    alert_id VARCHAR PRIMARY KEY,  -- Stable id: kind, subject, period or day, threshold (e.g. threshold:gpu-llm:2026-10:80); a rerun raises nothing new.
    kind VARCHAR NOT NULL,         -- threshold, forecast, spend_change, efficiency or health.
    subject VARCHAR NOT NULL,      -- Budget or rule name (health: xid_errors, ecc_errors, probe_drop, stale_source).
    severity VARCHAR NOT NULL,     -- info, warning or critical.
    title VARCHAR NOT NULL,        -- One line for a human.
    message VARCHAR NOT NULL,      -- The numbers behind it, in words.
    details VARCHAR,               -- The numbers as JSON (money as exact decimal strings).
    channels VARCHAR[],            -- Channels it is sent to (names from budgets.yaml).
    raised_at TIMESTAMP NOT NULL,  -- When the pipeline first raised it (UTC, the run's clock).
    notified_at TIMESTAMP,         -- When it had been delivered to every channel (UTC); null while any delivery is pending.
    deliveries VARCHAR             -- Per channel, as JSON: attempts, delivered_at, next_attempt_at, last_error (never the URL).
);
