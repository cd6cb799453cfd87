-- @table: One dated price of the managed inference price book: what a provider charges for a model from a day on, and where that figure was read. Costs managed usage that arrived without a price; the inference_comparison mart prices self-hosted token mixes with it.
CREATE TABLE IF NOT EXISTS managed_prices (
    provider VARCHAR NOT NULL,             -- Provider (as the gateway names it: custom_llm_provider).
    model VARCHAR NOT NULL,                -- Model (as callers and self-hosted runs name it).
    valid_from DATE NOT NULL,              -- First UTC day the price applies; it holds until the next price of the same provider and model.
    currency VARCHAR NOT NULL,             -- USD.
    input_per_mtok DECIMAL(38, 9),         -- USD per million input tokens (not served from cache).
    output_per_mtok DECIMAL(38, 9),        -- USD per million output tokens.
    cached_input_per_mtok DECIMAL(38, 9),  -- USD per million cached input tokens; null: charged as input_per_mtok.
    per_request DECIMAL(38, 9),            -- USD per successful request, on top of the token prices.
    per_gpu_hour DECIMAL(38, 9),           -- USD per GPU-hour of a dedicated deployment (for reference; requests are not costed from it).
    source_url VARCHAR NOT NULL,           -- Where the price was read (the provider's pricing page).
    as_of DATE NOT NULL,                   -- The day it was read there.
    source_file VARCHAR,                   -- Price-book file.
    source_line BIGINT                     -- 1-based line in that file.
);
