-- @query: One source (as flopledger.yaml names it) with the table it lands in, that table's
--   time column and the latest time there (NULL while the table is empty).
SELECT 'gcp_billing' AS source, 'billing_line_items' AS table_name, 'usage_end' AS time_column,
       (SELECT max(usage_end) FROM billing_line_items) AS latest
UNION ALL
SELECT 'jobs', 'jobs', 'submitted_at', (SELECT max(submitted_at) FROM jobs)
UNION ALL
SELECT 'nvml_spool', 'gpu_samples', 'minute', (SELECT max(minute) FROM gpu_samples)
UNION ALL
SELECT 'cloud_monitoring', 'tpu_samples', 'minute', (SELECT max(minute) FROM tpu_samples)
UNION ALL
SELECT 'probes', 'probe_results', 'measured_at', (SELECT max(measured_at) FROM probe_results)
