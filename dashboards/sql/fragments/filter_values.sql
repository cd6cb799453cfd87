-- @query: The sidebar filters as one row: bound by name (dashboards/filters.py, Filters.params)
--   and typed once here. Every filtered fragment joins it as `f`; an empty list means "all".
-- @param accelerators: the accelerator types chosen (VARCHAR[]; empty: all)
-- @param classes: the workload classes chosen (VARCHAR[]; empty: all)
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param projects: the projects chosen (VARCHAR[]; empty: all)
-- @param providers: the providers chosen (VARCHAR[]; empty: all)
-- @param start_day: the range's first UTC day (DATE, inclusive)
-- @param teams: the teams chosen (VARCHAR[]; empty: all)
SELECT
    CAST($start_day AS DATE) AS start_day,
    CAST($end_day AS DATE) AS end_day,
    CAST($providers AS VARCHAR[]) AS providers,
    CAST($teams AS VARCHAR[]) AS teams,
    CAST($projects AS VARCHAR[]) AS projects,
    CAST($classes AS VARCHAR[]) AS classes,
    CAST($accelerators AS VARCHAR[]) AS accelerators
