-- @query: FOCUS rows loaded although they break the specification (spec_issues set).
SELECT count(*) AS n FROM focus_line_items WHERE spec_issues IS NOT NULL
