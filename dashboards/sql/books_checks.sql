-- @query: The reconciliation (books): each check with the export's side, the allocation's and
--   the difference (zero when the books close).
SELECT check_name, expected AS expected_usd, actual AS actual_usd, difference AS difference_usd
FROM books
ORDER BY check_name
