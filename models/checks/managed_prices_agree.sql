-- @query: One row when the gateway and the price book priced managed requests differently (more
--   than 1% and 0.000001 USD apart: the gateway's price table or the book is out of date): how
--   many.
-- @row: {n} request(s) priced differently by the gateway and the price book
SELECT count(*) AS n FROM cost_per_request WHERE price_mismatch HAVING count(*) > 0
