-- @query: The export rows the in-place read could not prove plain, each as the export table
--   holds it (`export_row`, the row as a record): handed to the per-row normaliser
--   (collectors/gcp_billing/normalise.py), which loads each or quarantines it with its reason.
SELECT export_row
FROM billing_export_normalised
WHERE NOT plain
