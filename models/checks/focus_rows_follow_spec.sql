-- @query: One row when FOCUS rows were loaded although they break the specification (read where
--   their meaning is clear: a value in the wrong case, a mandatory cost left null; the reason in
--   spec_issues, for the provider's export to be fixed): how many.
-- @row: {n} FOCUS row(s) break the specification: see focus_line_items.spec_issues
SELECT count(*) AS n FROM focus_line_items WHERE spec_issues IS NOT NULL HAVING count(*) > 0
