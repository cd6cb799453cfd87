-- @table: The project's own costs as a FOCUS 1.2 cost and usage dataset, one row per billing row of every source (Google's export, FOCUS files of other providers), USD; `flopledger export focus` writes it with FOCUS's column names. x_ columns: the source, the team and the accelerator.
-- @grain day: charge_period_start
-- @col availability_zone: AvailabilityZone (FOCUS 1.2).
-- @col billed_cost: BilledCost (USD): Google rows cost + credits (what is invoiced); FOCUS rows as read.
-- @col billing_account_id: BillingAccountId (FOCUS 1.2).
-- @col billing_account_name: BillingAccountName (FOCUS 1.2).
-- @col billing_account_type: BillingAccountType (FOCUS 1.2).
-- @col billing_currency: BillingCurrency (FOCUS 1.2).
-- @col billing_period_end: BillingPeriodEnd (FOCUS 1.2).
-- @col billing_period_start: BillingPeriodStart (FOCUS 1.2).
-- @col capacity_reservation_id: CapacityReservationId (FOCUS 1.2).
-- @col capacity_reservation_status: CapacityReservationStatus (FOCUS 1.2).
-- @col charge_category: ChargeCategory: Usage, Tax or Adjustment for Google rows (cost_type); FOCUS rows as read.
-- @col charge_class: ChargeClass (FOCUS 1.2).
-- @col charge_description: ChargeDescription (FOCUS 1.2).
-- @col charge_frequency: ChargeFrequency (FOCUS 1.2).
-- @col charge_period_end: ChargePeriodEnd (FOCUS 1.2).
-- @col charge_period_start: ChargePeriodStart (FOCUS 1.2).
-- @col commitment_discount_category: CommitmentDiscountCategory (FOCUS 1.2).
-- @col commitment_discount_id: CommitmentDiscountId (FOCUS 1.2).
-- @col commitment_discount_name: CommitmentDiscountName (FOCUS 1.2).
-- @col commitment_discount_quantity: CommitmentDiscountQuantity (FOCUS 1.2).
-- @col commitment_discount_status: CommitmentDiscountStatus (FOCUS 1.2).
-- @col commitment_discount_type: CommitmentDiscountType (FOCUS 1.2).
-- @col commitment_discount_unit: CommitmentDiscountUnit (FOCUS 1.2).
-- @col consumed_quantity: ConsumedQuantity (FOCUS 1.2).
-- @col consumed_unit: ConsumedUnit (FOCUS 1.2).
-- @col contracted_cost: ContractedCost (FOCUS 1.2).
-- @col contracted_unit_price: ContractedUnitPrice (FOCUS 1.2).
-- @col effective_cost: EffectiveCost (USD): Google rows cost + credits; FOCUS rows as read.
-- @col invoice_id: InvoiceId: Google's export names no invoice, so its billing account and invoice month (YYYYMM) key the invoice; FOCUS rows' own, else the same key.
-- @col invoice_issuer_name: InvoiceIssuerName (FOCUS 1.2).
-- @col list_cost: ListCost (USD).
-- @col list_unit_price: ListUnitPrice (FOCUS 1.2).
-- @col pricing_category: PricingCategory (FOCUS 1.2).
-- @col pricing_currency: PricingCurrency (FOCUS 1.2).
-- @col pricing_currency_contracted_unit_price: PricingCurrencyContractedUnitPrice (FOCUS 1.2).
-- @col pricing_currency_effective_cost: PricingCurrencyEffectiveCost (FOCUS 1.2).
-- @col pricing_currency_list_unit_price: PricingCurrencyListUnitPrice (FOCUS 1.2).
-- @col pricing_quantity: PricingQuantity (FOCUS 1.2).
-- @col pricing_unit: PricingUnit (FOCUS 1.2).
-- @col provider_name: ProviderName: Google Cloud for the export's rows; FOCUS rows as written.
-- @col publisher_name: PublisherName (FOCUS 1.2).
-- @col region_id: RegionId (FOCUS 1.2).
-- @col region_name: RegionName (FOCUS 1.2).
-- @col resource_id: ResourceId (FOCUS 1.2).
-- @col resource_name: ResourceName (FOCUS 1.2).
-- @col resource_type: ResourceType (FOCUS 1.2).
-- @col service_category: ServiceCategory (FOCUS 1.2).
-- @col service_name: ServiceName (FOCUS 1.2).
-- @col service_subcategory: ServiceSubcategory: 'Other (<ServiceCategory>)' where no finer one is known.
-- @col sku_id: SkuId (FOCUS 1.2).
-- @col sku_meter: SkuMeter (FOCUS 1.2).
-- @col sku_price_details: SkuPriceDetails (FOCUS 1.2).
-- @col sku_price_id: SkuPriceId (FOCUS 1.2).
-- @col sub_account_id: SubAccountId (FOCUS 1.2).
-- @col sub_account_name: SubAccountName (FOCUS 1.2).
-- @col sub_account_type: SubAccountType (FOCUS 1.2).
-- @col tags: Tags (FOCUS 1.2).
-- @col x_source: Where the row came from: gcp_billing or focus.
-- @col x_team: Team the row is charged to (label or tag team; __unallocated__ when none).
-- @col x_accelerator_type: Canonical accelerator type the row pays for (null when none).
-- @col x_allocated_cost: The part of the row's effective cost allocated to runs (USD; 0 when none): a row labelled with a run, all of it; a row of a resource, in each hour floor(its cost there x the run's claim / max(paid, all claims)), the allocation rule applied to the row. Any provider's rows (an AWS instance's FOCUS rows too). A commitment fee row carries the fee shares the resource-hours that used the commitment took, allocated the same way (a commitment-hour with several fee rows: on the first by row id). Each part is rounded down to the nano-dollar, so a run's parts can fall short of cost_per_run by nano-dollars.
-- @col x_runs: The runs the row was allocated to and how much (USD), as a JSON object {"run_id": "cost"}; null when none.
WITH fee_rows AS (
    SELECT commitment_id, hour, min(row_id) AS row_id FROM billing_hourly WHERE row_kind = 'commitment_fee' GROUP BY commitment_id, hour
),
row_run_parts AS (
    SELECT h.row_id, r.run_id, floor_div(h.effective_nanos * r.claim_accelerator_nanos, p.denominator_nanos) AS nanos
    FROM billing_hourly AS h
    JOIN resource_hour_pool AS p USING (project_id, resource_name, hour)
    JOIN run_held_hours AS r USING (project_id, resource_name, hour)
    WHERE h.row_kind = 'usage' AND h.direct_run_id IS NULL AND p.denominator_nanos > 0
    UNION ALL
    SELECT row_id, direct_run_id, effective_nanos FROM billing_hourly WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT f.row_id, r.run_id, floor_div(c.fee_share_nanos * r.claim_accelerator_nanos, p.denominator_nanos)
    FROM commitment_allocation AS c
    JOIN fee_rows AS f USING (commitment_id, hour)
    JOIN resource_hour_pool AS p USING (project_id, resource_name, hour)
    JOIN run_held_hours AS r USING (project_id, resource_name, hour)
    WHERE c.direct_run_id IS NULL AND p.denominator_nanos > 0
    UNION ALL
    SELECT f.row_id, c.direct_run_id, c.fee_share_nanos
    FROM commitment_allocation AS c
    JOIN fee_rows AS f USING (commitment_id, hour)
    WHERE c.direct_run_id IS NOT NULL
),
row_runs AS (
    SELECT row_id, run_id, sum(nanos) AS nanos FROM row_run_parts GROUP BY row_id, run_id
),
row_allocation AS (
    SELECT
        row_id,
        from_nanos(sum(nanos)) AS x_allocated_cost,
        '{' || string_agg(CAST(to_json(run_id) AS VARCHAR) || ': ' || CAST(to_json(CAST(from_nanos(nanos) AS VARCHAR)) AS VARCHAR), ', ' ORDER BY run_id) || '}' AS x_runs
    FROM row_runs
    GROUP BY row_id
)
SELECT
        zone AS availability_zone,
        CAST(cost_usd + credits_total_usd AS DECIMAL(38, 12)) AS billed_cost,
        coalesce(billing_account_id, 'unknown') AS billing_account_id,
        coalesce(billing_account_id, 'unknown') AS billing_account_name,
        'Billing Account' AS billing_account_type,
        'USD' AS billing_currency,
        CAST(strptime(invoice_month || '01', '%Y%m%d') + INTERVAL 1 MONTH AS TIMESTAMP) AS billing_period_end,
        CAST(strptime(invoice_month || '01', '%Y%m%d') AS TIMESTAMP) AS billing_period_start,
        NULL AS capacity_reservation_id,
        NULL AS capacity_reservation_status,
        CASE cost_type WHEN 'tax' THEN 'Tax' WHEN 'adjustment' THEN 'Adjustment' WHEN 'rounding_error' THEN 'Adjustment' ELSE 'Usage' END AS charge_category,
        NULL AS charge_class,
        coalesce(sku_description, service_name) AS charge_description,
        CASE WHEN coalesce(cost_type, 'regular') = 'regular' THEN 'Usage-Based' ELSE 'Recurring' END AS charge_frequency,
        usage_end AS charge_period_end,
        usage_start AS charge_period_start,
        NULL AS commitment_discount_category,
        NULL AS commitment_discount_id,
        NULL AS commitment_discount_name,
        NULL AS commitment_discount_quantity,
        NULL AS commitment_discount_status,
        NULL AS commitment_discount_type,
        NULL AS commitment_discount_unit,
        CASE WHEN coalesce(cost_type, 'regular') = 'regular' THEN CAST(coalesce(usage_amount, 0) AS DECIMAL(38, 15)) END AS consumed_quantity,
        CASE WHEN coalesce(cost_type, 'regular') = 'regular' THEN coalesce(usage_unit, 'Units') END AS consumed_unit,
        CAST(cost_usd + credits_total_usd AS DECIMAL(38, 12)) AS contracted_cost,
        NULL AS contracted_unit_price,
        CAST(cost_usd + credits_total_usd AS DECIMAL(38, 12)) AS effective_cost,
        billing_account_id || '-' || invoice_month AS invoice_id,
        'Google Cloud' AS invoice_issuer_name,
        CAST(coalesce(cost_at_list_usd, cost_usd) AS DECIMAL(38, 12)) AS list_cost,
        NULL AS list_unit_price,
        CASE WHEN coalesce(cost_type, 'regular') <> 'regular' THEN NULL WHEN pricing_model IN ('spot', 'dws') THEN 'Dynamic' WHEN pricing_model IN ('commitment', 'reserved') THEN 'Committed' ELSE 'Standard' END AS pricing_category,
        NULL AS pricing_currency,
        NULL AS pricing_currency_contracted_unit_price,
        NULL AS pricing_currency_effective_cost,
        NULL AS pricing_currency_list_unit_price,
        CASE WHEN coalesce(cost_type, 'regular') = 'regular' THEN CAST(coalesce(usage_amount_in_pricing_units, usage_amount, 0) AS DECIMAL(38, 15)) END AS pricing_quantity,
        CASE WHEN coalesce(cost_type, 'regular') = 'regular' THEN coalesce(usage_pricing_unit, usage_unit, 'Units') END AS pricing_unit,
        'Google Cloud' AS provider_name,
        'Google Cloud' AS publisher_name,
        region AS region_id,
        region AS region_name,
        coalesce(resource_global_name, resource_name) AS resource_id,
        resource_name AS resource_name,
        CASE WHEN resource_name IS NOT NULL THEN CASE WHEN accelerator_type LIKE 'TPU%' THEN 'TPU' ELSE 'Virtual Machine' END END AS resource_type,
        gcp_service_category(service_name) AS service_category,
        coalesce(service_name, 'Unknown') AS service_name,
        'Other (' || gcp_service_category(service_name) || ')' AS service_subcategory,
        sku_id AS sku_id,
        sku_description AS sku_meter,
        NULL AS sku_price_details,
        sku_id AS sku_price_id,
        project_id AS sub_account_id,
        coalesce(project_name, project_id) AS sub_account_name,
        CASE WHEN project_id IS NOT NULL THEN 'Project' END AS sub_account_type,
        CASE WHEN cardinality(labels) > 0 THEN to_json(labels)::VARCHAR END AS tags,
        'gcp_billing' AS x_source,
        coalesce(row_team(labels), '__unallocated__') AS x_team,
        accelerator_type AS x_accelerator_type,
        coalesce(a.x_allocated_cost, 0) AS x_allocated_cost,
        a.x_runs AS x_runs
FROM billing_line_items
LEFT JOIN row_allocation AS a USING (row_id)
WHERE invoice_month IS NOT NULL
UNION ALL
SELECT
        availability_zone AS availability_zone,
        billed_cost AS billed_cost,
        billing_account_id AS billing_account_id,
        billing_account_name AS billing_account_name,
        billing_account_type AS billing_account_type,
        billing_currency AS billing_currency,
        billing_period_end AS billing_period_end,
        billing_period_start AS billing_period_start,
        capacity_reservation_id AS capacity_reservation_id,
        capacity_reservation_status AS capacity_reservation_status,
        charge_category AS charge_category,
        charge_class AS charge_class,
        charge_description AS charge_description,
        charge_frequency AS charge_frequency,
        charge_period_end AS charge_period_end,
        charge_period_start AS charge_period_start,
        commitment_discount_category AS commitment_discount_category,
        commitment_discount_id AS commitment_discount_id,
        commitment_discount_name AS commitment_discount_name,
        commitment_discount_quantity AS commitment_discount_quantity,
        commitment_discount_status AS commitment_discount_status,
        commitment_discount_type AS commitment_discount_type,
        commitment_discount_unit AS commitment_discount_unit,
        consumed_quantity AS consumed_quantity,
        consumed_unit AS consumed_unit,
        contracted_cost AS contracted_cost,
        contracted_unit_price AS contracted_unit_price,
        effective_cost AS effective_cost,
        coalesce(invoice_id, billing_account_id || '-' || strftime(billing_period_start, '%Y%m')) AS invoice_id,
        invoice_issuer_name AS invoice_issuer_name,
        list_cost AS list_cost,
        list_unit_price AS list_unit_price,
        pricing_category AS pricing_category,
        pricing_currency AS pricing_currency,
        pricing_currency_contracted_unit_price AS pricing_currency_contracted_unit_price,
        pricing_currency_effective_cost AS pricing_currency_effective_cost,
        pricing_currency_list_unit_price AS pricing_currency_list_unit_price,
        pricing_quantity AS pricing_quantity,
        pricing_unit AS pricing_unit,
        provider_name AS provider_name,
        publisher_name AS publisher_name,
        region_id AS region_id,
        region_name AS region_name,
        resource_id AS resource_id,
        resource_name AS resource_name,
        resource_type AS resource_type,
        service_category AS service_category,
        service_name AS service_name,
        coalesce(service_subcategory, 'Other (' || service_category || ')') AS service_subcategory,
        sku_id AS sku_id,
        sku_meter AS sku_meter,
        sku_price_details AS sku_price_details,
        sku_price_id AS sku_price_id,
        sub_account_id AS sub_account_id,
        sub_account_name AS sub_account_name,
        sub_account_type AS sub_account_type,
        tags AS tags,
        'focus' AS x_source,
        coalesce(nullif(trim(json_extract_string(tags, '$.team')), ''), '__unallocated__') AS x_team,
        accelerator_type AS x_accelerator_type,
        coalesce(a.x_allocated_cost, 0) AS x_allocated_cost,
        a.x_runs AS x_runs
FROM focus_line_items
LEFT JOIN row_allocation AS a ON a.row_id = focus_line_items.line_item_id
ORDER BY charge_period_start, provider_name, sub_account_id, resource_id, charge_description
