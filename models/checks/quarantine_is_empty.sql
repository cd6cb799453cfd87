-- @query: One source with how many of its input rows are quarantined. None: nothing refused.
-- @row: {n} from {source}
SELECT source, count(*) AS n FROM quarantine GROUP BY source ORDER BY source
