-- @table: One bucket of a provider's usage export (OpenAI organisation usage/completions format): tokens and requests per bucket (a UTC day), project, model, key, user and batch flag.
-- @grain day: bucket_start
CREATE TABLE IF NOT EXISTS managed_usage (
    usage_id VARCHAR NOT NULL,           -- Stable hash of provider, bucket start and the group-by fields: a page read twice is one row.
    provider VARCHAR NOT NULL,           -- Provider the export came from (named in flopledger.yaml; the pages do not say).
    bucket_start TIMESTAMP NOT NULL,     -- Bucket start (UTC, start_time); places the row on its UTC day.
    bucket_end TIMESTAMP NOT NULL,       -- Bucket end (UTC, end_time), exclusive.
    project_id VARCHAR,                  -- Provider project (null when the export was not grouped by project).
    model VARCHAR,                       -- Model (null when not grouped by model).
    batch BOOLEAN,                       -- True for the provider's batch API (batch_inference), false for online calls; null when not grouped by it.
    api_key_id VARCHAR,                  -- Provider API key id (when grouped by it).
    user_id VARCHAR,                     -- Provider user id (when grouped by it).
    input_tokens BIGINT NOT NULL,        -- Input tokens, cached ones included.
    input_cached_tokens BIGINT NOT NULL, -- Input tokens served from the provider's prompt cache.
    output_tokens BIGINT NOT NULL,       -- Output tokens.
    num_model_requests BIGINT NOT NULL,  -- Requests.
    source_file VARCHAR                  -- Page file the row came from.
);
