-- @table: One bucket of a provider's cost export (OpenAI organisation costs format): what the provider charged per bucket (a UTC day), project and line item.
-- @grain day: bucket_start
CREATE TABLE IF NOT EXISTS managed_costs (
    cost_id VARCHAR NOT NULL,        -- Stable hash of provider, bucket start, project and line item: a page read twice is one row.
    provider VARCHAR NOT NULL,       -- Provider the export came from (named in flopledger.yaml).
    bucket_start TIMESTAMP NOT NULL, -- Bucket start (UTC, start_time); places the row on its UTC day.
    bucket_end TIMESTAMP NOT NULL,   -- Bucket end (UTC, end_time), exclusive.
    project_id VARCHAR,              -- Provider project (null when not grouped by project).
    line_item VARCHAR,               -- What was charged, as the provider names it ('<model>, input', '<model>, output', ...).
    model VARCHAR,                   -- Model read from the line item (the text before its last comma); null when it names none.
    amount DECIMAL(38, 9) NOT NULL,  -- Charged amount in USD (amount.value), exact.
    currency VARCHAR NOT NULL,       -- USD (other currencies are quarantined until FX rates are applied).
    source_file VARCHAR              -- Page file the row came from.
);
