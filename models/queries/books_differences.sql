-- @query: One reconciliation check of the books with its difference (USD; zero when it closes).
SELECT check_name, difference FROM books
