-- @table: One budget and period (month, week or quarter, UTC days) from the first billed day to the as-of time: spend to date, run-rate forecast to the period's end, percent used, thresholds crossed. Computed by the budgets assets (docs/budgets.md), rewritten on every run. USD.
CREATE TABLE IF NOT EXISTS budget_status (
    budget VARCHAR NOT NULL,              -- Budget name.
    period_kind VARCHAR NOT NULL,         -- month, week or quarter.
    period_key VARCHAR NOT NULL,          -- 2026-10 (month), 2026-Q4 (quarter) or the first day of the week (2026-10-05).
    period_start DATE NOT NULL,           -- First day of the period.
    period_end DATE NOT NULL,             -- Last day of the period (inclusive).
    is_current BOOLEAN NOT NULL,          -- The period holding the as-of time (the one that alerts).
    as_of TIMESTAMP NOT NULL,             -- Measured as of the end of the latest billed usage (UTC).
    scope VARCHAR NOT NULL,               -- What the budget measures, in words.
    basis VARCHAR NOT NULL,               -- billing or allocated.
    currency VARCHAR NOT NULL,            -- Currency of the budget amount.
    amount DECIMAL(38, 9) NOT NULL,       -- Budget amount in its currency.
    fx_rate DECIMAL(38, 18) NOT NULL,     -- Units of currency per USD used (latest on or before period_start; 1 for USD).
    amount_usd DECIMAL(38, 9) NOT NULL,   -- amount / fx_rate (USD).
    spend_to_date DECIMAL(38, 9) NOT NULL, -- Effective cost in the scope from period_start to as_of (USD).
    run_rate_per_day DECIMAL(38, 9) NOT NULL, -- Mean daily spend over the trailing window of complete days (USD/day).
    run_rate_days INTEGER NOT NULL,       -- Complete days behind the run rate (fewer than the window when data is younger).
    forecast DECIMAL(38, 9) NOT NULL,     -- Spend on complete days + run rate x days left (as-of day included); never below spend_to_date (USD).
    percent_used DOUBLE NOT NULL,         -- spend_to_date / amount_usd x 100.
    forecast_percent DOUBLE NOT NULL,     -- forecast / amount_usd x 100.
    thresholds DOUBLE[] NOT NULL,         -- The budget's thresholds (percent).
    thresholds_crossed DOUBLE[] NOT NULL, -- Thresholds at or below percent_used.
    over_budget BOOLEAN NOT NULL,         -- spend_to_date >= amount_usd.
    forecast_overrun BOOLEAN NOT NULL,    -- forecast > amount_usd.
    forecast_alerts BOOLEAN NOT NULL,     -- Whether a forecast overrun alerts for this budget.
    channels VARCHAR[] NOT NULL           -- Channels its alerts go to.
);
