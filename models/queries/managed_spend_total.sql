-- @query: One row: managed inference over everything loaded: its cost (not part of the cloud
--   bill), requests, providers, and the requests nobody priced.
SELECT
    sum(cost) AS cost,
    sum(requests) AS requests,
    count(DISTINCT provider) AS providers,
    coalesce(sum(unpriced_requests), 0) AS unpriced_requests,
    min(day) AS first_day,
    max(day) AS last_day
FROM managed_inference_daily
