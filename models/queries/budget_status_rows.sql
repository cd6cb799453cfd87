-- @query: One budget_status row (a budget in one period), every column.
SELECT * FROM budget_status
