-- @query: One row per (service, SKU description) of the billing rows not classified yet (sku_kind
--   null: rows loaded before the SKU columns existed; none once a billing run has filled them).
SELECT DISTINCT service_name, sku_description
FROM billing_line_items
WHERE sku_kind IS NULL
