-- @query: Every row of focus_costs, for `flopledger export focus` (FOCUS 1.2 cost and usage).
SELECT * FROM focus_costs
