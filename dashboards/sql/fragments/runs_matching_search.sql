-- @query: Runs in the filters whose run id, job id, model or experiment contains the search
--   text ($needle: trimmed, lower case; '' matches every run). strpos, not LIKE: the text is
--   never a pattern.
-- @param needle: the search text (empty: every run)
SELECT r.*
FROM runs_in_filters AS r
WHERE $needle = ''
   OR strpos(lower(r.run_id), $needle) > 0
   OR strpos(lower(coalesce(r.job_id, '')), $needle) > 0
   OR strpos(lower(coalesce(r.model_name, '')), $needle) > 0
   OR strpos(lower(coalesce(r.experiment_id, '')), $needle) > 0
