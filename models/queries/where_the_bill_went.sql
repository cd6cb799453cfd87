-- @query: One row: how many runs have a cost, and whether the books close (every check of the
--   books table with no difference). The figures beside them come from their own queries
--   (bill_split, idle_figures).
SELECT
    (SELECT count(*) FROM cost_per_run WHERE effective_cost <> 0) AS run_count,
    (SELECT bool_and(difference = 0) FROM books) AS books_close
