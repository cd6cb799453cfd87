-- @table: One resource (project + resource_name) and UTC hour: what the bill says was paid there, the cost of every usage row of that resource in that hour (accelerators and host alike; rows that go directly to a run, commitment fees and unused reservation excluded) plus its share of the fees of the commitments it used, and what runs claimed. Integer nano-units.
-- @grain day: hour
-- @col project_id: Project of the resource.
-- @col resource_name: The resource as billed (VM, TPU node, bucket, ...).
-- @col hour: UTC hour (start).
-- @col accelerator_type: Canonical accelerator type billed on the resource in that hour (null: none).
-- @col effective_nanos: Effective cost of the resource-hour, commitment fee shares included, nano-USD (E).
-- @col billed_nanos: Billed cost of the resource-hour, nano-USD.
-- @col list_nanos: List cost of the resource-hour, nano-USD.
-- @col accelerator_effective_nanos: Effective cost of the accelerator SKU rows and of accelerator commitment fee shares, nano-USD.
-- @col commitment_fee_nanos: The resource-hour's share of the fees of commitments it used (part of E), nano-USD.
-- @col paid_accelerator_nanos: Accelerator-seconds paid x 1e9 (P).
-- @col held_accelerator_nanos: Accelerator-seconds all runs held x 1e9 (sum of H; each run's claim: held less what its own direct rows paid there, run_held_hours).
-- @col denominator_nanos: max(P, sum of H): a claim above what was paid is clipped pro rata.
-- @col clipped: True when runs claimed more accelerator-seconds than were paid.
-- @col provider: Who bills the resource: gcp, or the FOCUS ProviderName (AWS, Microsoft, Oracle ...).
WITH parts AS (
    SELECT
        project_id, resource_name, hour, accelerator_type, effective_nanos, billed_nanos, list_nanos,
        CASE WHEN accelerator_type IS NOT NULL THEN effective_nanos ELSE 0 END AS accelerator_effective_nanos,
        paid_accelerator_nanos,
        0 AS commitment_fee_nanos,
        provider
    FROM billing_hourly
    WHERE resource_name IS NOT NULL AND direct_run_id IS NULL AND row_kind = 'usage'
    UNION ALL
    -- A fee share is part of the resource-hour's cost, not of its paid accelerator-seconds.
    SELECT
        project_id, resource_name, hour, NULL, fee_share_nanos, fee_billed_share_nanos, 0,
        CASE WHEN resource_kind NOT IN ('cores', 'memory') THEN fee_share_nanos ELSE 0 END,
        0,
        fee_share_nanos,
        NULL
    FROM commitment_allocation
    WHERE resource_name IS NOT NULL AND direct_run_id IS NULL
),
pools AS (
    SELECT
        project_id,
        resource_name,
        hour,
        max(accelerator_type) AS accelerator_type,
        sum(effective_nanos) AS effective_nanos,
        sum(billed_nanos) AS billed_nanos,
        sum(list_nanos) AS list_nanos,
        sum(accelerator_effective_nanos) AS accelerator_effective_nanos,
        sum(paid_accelerator_nanos) AS paid_accelerator_nanos,
        sum(commitment_fee_nanos) AS commitment_fee_nanos,
        max(provider) AS provider
    FROM parts
    GROUP BY project_id, resource_name, hour
),
held AS (
    SELECT project_id, resource_name, hour, sum(claim_accelerator_nanos) AS held_accelerator_nanos
    FROM run_held_hours
    GROUP BY ALL
)
SELECT
    p.project_id,
    p.resource_name,
    p.hour,
    p.accelerator_type,
    p.effective_nanos,
    p.billed_nanos,
    p.list_nanos,
    p.accelerator_effective_nanos,
    p.paid_accelerator_nanos,
    p.commitment_fee_nanos,
    coalesce(h.held_accelerator_nanos, 0) AS held_accelerator_nanos,
    greatest(p.paid_accelerator_nanos, coalesce(h.held_accelerator_nanos, 0)) AS denominator_nanos,
    coalesce(h.held_accelerator_nanos, 0) > p.paid_accelerator_nanos AS clipped,
    p.provider
FROM pools AS p
LEFT JOIN held AS h USING (project_id, resource_name, hour)
