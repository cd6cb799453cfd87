-- @table: One run, resource and UTC hour: its share of what was paid there and the cost allocated to it (the allocation rule of DESIGN.md). allocated = floor(E x H / max(P, sum H)) in nano-USD; the remainder of each resource-hour is unallocated idle.
-- @grain day: hour
-- @check shares_are_sane (error, blocking): No negative share, no allocation above cost.
-- @col run_id: The run.
-- @col project_id: Project of the resource.
-- @col resource_name: The resource.
-- @col hour: UTC hour (start).
-- @col held_accelerator_seconds: Accelerator-seconds the run held there in that hour.
-- @col share: claim / max(paid, all claims): the run's fraction of the resource-hour (0 to 1); the claim is what it held less what its own direct rows paid there (run_held_hours).
-- @col clipped: True when the claims on that resource-hour exceeded what was paid.
-- @col allocated_nanos: Effective cost allocated, nano-USD (rounded toward minus infinity).
-- @col allocated_list_nanos: List cost allocated by the same share, nano-USD.
-- @col allocated_accelerator_nanos: Paid accelerator-seconds x 1e9 allocated by the same share.
-- @col effective_cost: allocated_nanos as money (USD, DECIMAL(38, 9)).
SELECT
    h.run_id,
    h.project_id,
    h.resource_name,
    h.hour,
    CAST(h.held_accelerator_nanos AS DOUBLE) / 1e9 AS held_accelerator_seconds,
    CASE WHEN p.denominator_nanos > 0 THEN CAST(h.claim_accelerator_nanos AS DOUBLE) / CAST(p.denominator_nanos AS DOUBLE) END AS share,
    coalesce(p.clipped, false) AS clipped,
    CASE WHEN p.denominator_nanos > 0 THEN floor_div(p.effective_nanos * h.claim_accelerator_nanos, p.denominator_nanos) ELSE 0 END AS allocated_nanos,
    CASE WHEN p.denominator_nanos > 0 THEN floor_div(p.list_nanos * h.claim_accelerator_nanos, p.denominator_nanos) ELSE 0 END AS allocated_list_nanos,
    CASE WHEN p.denominator_nanos > 0 THEN floor_div(p.paid_accelerator_nanos * h.claim_accelerator_nanos, p.denominator_nanos) ELSE 0 END AS allocated_accelerator_nanos,
    from_nanos(CASE WHEN p.denominator_nanos > 0 THEN floor_div(p.effective_nanos * h.claim_accelerator_nanos, p.denominator_nanos) ELSE 0 END) AS effective_cost
FROM run_held_hours AS h
LEFT JOIN resource_hour_pool AS p USING (project_id, resource_name, hour)
