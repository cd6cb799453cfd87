-- @query: A reconciliation check of the books that does not close: its name and difference
--   (USD). None: the books close.
-- @row: {check_name} out by {difference}
SELECT check_name, difference FROM books WHERE difference <> 0 ORDER BY check_name
