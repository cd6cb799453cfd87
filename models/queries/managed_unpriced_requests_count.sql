-- @query: How many managed requests nobody priced (no gateway figure, no price-book price): their cost is missing.
SELECT count(*) AS n
FROM cost_per_request
WHERE cost_source = 'unpriced'
