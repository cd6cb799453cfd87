-- @query: How many runs match the filters and search text, and what they cost.
SELECT count(*) AS runs, coalesce(sum(r.effective_cost), 0) AS effective_usd
FROM runs_matching_search AS r
