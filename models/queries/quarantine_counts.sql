-- @query: One source with how many of its input rows are quarantined, by source.
SELECT source, count(*) AS n FROM quarantine GROUP BY source ORDER BY source
