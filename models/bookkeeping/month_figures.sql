-- @table: The figures each calendar month is watched by, as the last marts run saw them: every team's chargeback and the month's effective cost. A run compares the months it changed against these, and a closed month whose figure moved is recorded in closed_month_changes (pipelines/marts/closed_months.py).
CREATE TABLE IF NOT EXISTS month_figures (
    month DATE NOT NULL,           -- First day of the calendar month (UTC).
    figure VARCHAR NOT NULL,       -- The figure, as the month report's totals name it (e.g. chargeback llm total_cost).
    value DECIMAL(38, 12),         -- Its value (USD).
    seen_at TIMESTAMP NOT NULL     -- When a run last stored it (UTC, wall clock).
);
