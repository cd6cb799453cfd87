-- @query: One row per BigQuery export table read so far (`source` = 'bigquery:' and the
--   table): the latest export_time taken from it, where the next read starts.
SELECT source, max(export_time) AS taken_through
FROM billing_line_items
WHERE source LIKE 'bigquery:%'
GROUP BY source
