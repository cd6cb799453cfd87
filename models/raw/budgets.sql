-- @table: One budget from budgets.yaml as last loaded (the file is the source of truth; this copy is rewritten on every run).
CREATE TABLE IF NOT EXISTS budgets (
    budget VARCHAR PRIMARY KEY,        -- Budget name (unique in budgets.yaml).
    scope VARCHAR NOT NULL,            -- What it measures, in words (team=..., project=..., label k=v; everything when empty).
    scope_json VARCHAR NOT NULL,       -- The scope as JSON: team, project, workload_class, accelerator_type (lists), labels (map).
    basis VARCHAR NOT NULL,            -- billing (billing rows) or allocated (cost allocated to runs, when the scope names a workload class).
    period VARCHAR NOT NULL,           -- month, week or quarter (UTC days).
    week_start VARCHAR,                -- First day of a week period (monday ... sunday); null for months and quarters.
    amount DECIMAL(38, 9) NOT NULL,    -- Budget amount per period, in `currency`.
    currency VARCHAR NOT NULL,         -- Currency of the amount (ISO 4217); converted to USD with the fx_rates file.
    thresholds DOUBLE[] NOT NULL,      -- Alert thresholds, percent of the amount (e.g. [50, 80, 100]).
    forecast_alerts BOOLEAN NOT NULL,  -- Whether a forecast overrun raises an alert.
    channels VARCHAR[] NOT NULL,       -- Notification channels (names from budgets.yaml; URLs live in environment variables).
    loaded_at TIMESTAMP NOT NULL       -- When the pipeline loaded it (UTC).
);
