-- @query: One row per place billing rows were read from: each BigQuery export table
--   (`source` = 'bigquery:' and the table) and the extract files together ('files'), with the
--   latest export_time taken from it. A table's is where its next read starts; every run
--   reports them (how far the bill has landed).
SELECT CASE WHEN source LIKE 'bigquery:%' THEN source ELSE 'files' END AS source,
       max(export_time) AS taken_through
FROM billing_line_items
GROUP BY 1
