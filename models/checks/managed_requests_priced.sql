-- @query: One row when managed requests were priced by nobody (no gateway figure, no price-book
--   price: their cost is missing, a price is missing from the book): how many.
-- @row: {n} request(s) without a price: add their provider and model to the price book
SELECT count(*) AS n FROM cost_per_request WHERE cost_source = 'unpriced' HAVING count(*) > 0
