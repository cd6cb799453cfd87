-- @table: One request to a managed inference provider, as an OpenAI-compatible gateway logged it (LiteLLM spend-log rows): who asked which model of which provider, when, with how many tokens, and what the gateway said it cost.
-- @grain day: started_at
CREATE TABLE IF NOT EXISTS managed_requests (
    request_id VARCHAR NOT NULL,       -- The gateway's request id: the same request logged twice is one row.
    started_at TIMESTAMP NOT NULL,     -- When the request reached the gateway (UTC, LiteLLM startTime); places the row on its UTC day.
    ended_at TIMESTAMP,                -- When the response (or the error) came back (UTC, endTime).
    first_token_at TIMESTAMP,          -- First streamed token (UTC, completionStartTime); null when not logged.
    provider VARCHAR NOT NULL,         -- Provider the gateway routed to (custom_llm_provider: together_ai, baseten, huggingface, openai, ...).
    model VARCHAR NOT NULL,            -- Model the caller asked for (model_group, else model): the name self-hosted runs use too.
    provider_model VARCHAR,            -- Model name as routed to the provider (LiteLLM model).
    team VARCHAR,                      -- Team of the calling key (metadata.user_api_key_team_alias, else team_id).
    api_key_alias VARCHAR,             -- Alias of the calling key (metadata.user_api_key_alias).
    end_user VARCHAR,                  -- End user the caller named (end_user, else user).
    workload_class VARCHAR NOT NULL,   -- From a request tag 'workload_class:<class>'; online_inference when untagged.
    call_type VARCHAR,                 -- Gateway call type (acompletion, aembedding, ...).
    status VARCHAR NOT NULL,           -- success or failure.
    cache_hit BOOLEAN NOT NULL,        -- Served from the gateway's own response cache (the provider was not called).
    prompt_tokens BIGINT NOT NULL,     -- Input tokens, cached ones included.
    cached_tokens BIGINT NOT NULL,     -- Input tokens the provider served from its prompt cache (usage prompt_tokens_details.cached_tokens).
    completion_tokens BIGINT NOT NULL, -- Output tokens.
    spend DECIMAL(38, 9),              -- USD the gateway computed for the request, as logged; 0 or null when it knew no price (the price book then costs it).
    source_file VARCHAR,               -- Log file the row came from.
    source_line BIGINT                 -- 1-based line in that file.
);
