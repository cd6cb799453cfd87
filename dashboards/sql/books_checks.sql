-- @query: The reconciliation (books): each check with the export's side, the allocation's and
--   the difference (zero when the books close).
SELECT check_name, expected, actual, difference
FROM books
ORDER BY check_name
