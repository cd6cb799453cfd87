-- @table: One commitment and UTC hour: the committed quantity, what was used of it, its fee, the part of the fee the resource-hours that used it took, and what is left: unused commitment (idle of its own kind, never shared cost). Integer nano-units.
-- @grain day: hour
-- @col commitment_id: The commitment (its fee rows' resource, else account/region/kind/SKU).
-- @col hour: UTC hour (start).
-- @col project_id: Project the fee is billed to.
-- @col billing_account_id: Billing account of the fee.
-- @col region: Region of the commitment.
-- @col sku_description: The fee's SKU (e.g. Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year).
-- @col term: The commitment's term from its SKU (billing_line_items.commitment_term: 1 Year, 3 Years), null when the SKU does not say.
-- @col resource_kind: Accelerator type, cores or memory.
-- @col committed_nanos: Committed quantity in the hour x 1e9 (accelerator-seconds for accelerators).
-- @col used_nanos: Usage that got the commitment's credit x 1e9 (may exceed the committed quantity).
-- @col fee_nanos: Effective fee in the hour, nano-USD.
-- @col fee_billed_nanos: Billed fee in the hour, nano-USD.
-- @col allocated_nanos: Fee shares taken by the resource-hours that used it, nano-USD.
-- @col unused_nanos: fee_nanos - allocated_nanos: unused commitment, rounding remainders included, nano-USD.
-- @col provider: gcp, or the FOCUS ProviderName of a commitment discount (whose fee rows are its Purchase and Unused rows: their effective cost, the Unused part, is unused commitment).
WITH fees AS (
    SELECT
        commitment_id,
        hour,
        max(project_id) AS project_id,
        max(billing_account_id) AS billing_account_id,
        max(region) AS region,
        max(sku_description) AS sku_description,
        max(commitment_term) AS term,
        max(resource_kind) AS resource_kind,
        sum(usage_units_nanos) AS committed_nanos,
        sum(effective_nanos) AS fee_nanos,
        sum(billed_nanos) AS fee_billed_nanos,
        max(provider) AS provider
    FROM billing_hourly AS h
    LEFT JOIN (SELECT row_id, sku_description, commitment_term FROM billing_line_items) AS b USING (row_id)
    WHERE h.row_kind = 'commitment_fee'
    GROUP BY commitment_id, hour
),
used AS (
    SELECT commitment_id, hour, sum(committed_usage_nanos) AS used_nanos, sum(fee_share_nanos) AS allocated_nanos
    FROM commitment_allocation
    GROUP BY ALL
)
SELECT
    f.commitment_id,
    f.hour,
    f.project_id,
    f.billing_account_id,
    f.region,
    f.sku_description,
    f.term,
    f.resource_kind,
    f.committed_nanos,
    coalesce(u.used_nanos, 0) AS used_nanos,
    f.fee_nanos,
    f.fee_billed_nanos,
    coalesce(u.allocated_nanos, 0) AS allocated_nanos,
    f.fee_nanos - coalesce(u.allocated_nanos, 0) AS unused_nanos,
    f.provider
FROM fees AS f
LEFT JOIN used AS u USING (commitment_id, hour)
ORDER BY f.commitment_id, f.hour
