-- @query: The runs in the filters (runs_in_filters) whose run id, job id, model or experiment
--   contains $needle. The one statement of the run search: top_runs and run_totals read it.
-- @param needle: the search text (trimmed, lower case; '' matches every run). strpos, not LIKE:
--   the text is never a pattern.
SELECT r.*
FROM runs_in_filters AS r
WHERE $needle = ''
   OR strpos(lower(r.run_id), $needle) > 0
   OR strpos(lower(coalesce(r.job_id, '')), $needle) > 0
   OR strpos(lower(coalesce(r.model_name, '')), $needle) > 0
   OR strpos(lower(coalesce(r.experiment_id, '')), $needle) > 0
