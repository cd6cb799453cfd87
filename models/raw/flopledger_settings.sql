-- @table: The settings the marts were built with (one row per setting), written by the pipeline from flopledger.yaml.
CREATE TABLE IF NOT EXISTS flopledger_settings (
    key VARCHAR PRIMARY KEY, -- Setting name, e.g. run_label_key or reporting_currency.
    value VARCHAR            -- Its value.
);
