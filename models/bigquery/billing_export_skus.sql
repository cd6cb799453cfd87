-- @query: The (service, SKU) descriptions of the rows the next read would take (the same
--   partition and export_time filters as billing_export_rows, two columns scanned): a few
--   hundred at most, classified in Python (collectors/skus.py) and loaded beside the warehouse
--   for the in-place read (ingest/gcp_billing/sql/billing_export_normalised.sql's `skus`).
-- @param since_day: the first ingestion-day partition read (DATE)
-- @param export_from: the first export_time read: the latest taken less the trailing window
-- @param export_until: the last export_time read (a backfill's: the latest taken)
SELECT DISTINCT service.description AS service_name, sku.description AS sku_description
FROM `{export_table}`
WHERE _PARTITIONTIME >= TIMESTAMP(@since_day)
  AND export_time >= @export_from
  AND export_time <= @export_until
ORDER BY sku_description, service_name
