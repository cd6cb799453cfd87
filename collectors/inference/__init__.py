"""Managed inference: what was bought from providers, per request or per day.

Three inputs, each read in the format its producer writes (docs/managed-inference.md):
- `gateway.py`: an OpenAI-compatible gateway's request log, one JSON object per request, in
  the shape of LiteLLM's `LiteLLM_SpendLogs` rows (request_id, model, model_group,
  custom_llm_provider, prompt/completion tokens, spend, startTime, endTime, status, metadata);
- `provider_export.py`: a provider's usage and cost pages in the OpenAI organisation
  usage/costs bucket format (`/v1/organization/usage/completions`, `/v1/organization/costs`);
- `price_book.py`: a dated price book (CSV) that costs what arrived without a price.
Each returns an Arrow table in step with its models/raw/*.sql table and quarantine rows.
"""
