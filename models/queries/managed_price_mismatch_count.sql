-- @query: How many managed requests the gateway and the price book priced differently (more than 1% and 0.000001 USD apart).
SELECT count(*) AS n
FROM cost_per_request
WHERE price_mismatch
