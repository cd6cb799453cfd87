-- @query: The values of one label key ($label_key) on billing rows, '(none)' for rows without
--   it.
-- @param label_key: the label key the label grouping and filter read (VARCHAR)
SELECT DISTINCT coalesce(labels[CAST($label_key AS VARCHAR)], '(none)') AS value
FROM cost_explorer_rows
ORDER BY value
