-- @table: The reconciliation, one row per check: the export's effective total against what the allocation put where. Every difference must be exactly zero.
-- @depends: billing_line_items, billing_hourly, resource_hour_pool, run_allocation, run_direct_costs, cost_per_run, commitment_allocation, commitment_hourly
-- @col check_name: What is compared.
-- @col expected: The export's side (USD).
-- @col actual: The allocation's side (USD).
-- @col difference: actual - expected (USD): zero when the books close.
WITH export AS (
    SELECT to_nanos(coalesce(sum(cost_usd + credits_total_usd), 0)) AS nanos FROM billing_line_items
),
spread AS (
    SELECT coalesce(sum(effective_nanos), 0) AS nanos FROM billing_hourly
),
pooled AS (
    SELECT coalesce(sum(effective_nanos), 0) AS nanos FROM resource_hour_pool
),
allocated AS (
    SELECT coalesce(sum(allocated_nanos), 0) AS nanos FROM run_allocation
),
direct AS (
    SELECT coalesce(sum(direct_nanos), 0) AS nanos FROM run_direct_costs
),
-- Shared cost: usage rows without a resource (tax, some network), and their commitment fee shares.
shared_parts AS (
    SELECT hour, effective_nanos AS nanos FROM billing_hourly
    WHERE resource_name IS NULL AND direct_run_id IS NULL AND row_kind = 'usage'
    UNION ALL
    SELECT hour, fee_share_nanos FROM commitment_allocation
    WHERE resource_name IS NULL AND direct_run_id IS NULL
),
no_resource AS (
    SELECT coalesce(sum(nanos), 0) AS nanos FROM shared_parts
),
unused_commitment AS (
    SELECT coalesce(sum(unused_nanos), 0) AS nanos FROM commitment_hourly
),
unused_reservation AS (
    SELECT coalesce(sum(effective_nanos), 0) AS nanos FROM billing_hourly WHERE row_kind = 'unused_reservation'
),
unallocated AS (
    SELECT (SELECT nanos FROM pooled) - (SELECT nanos FROM allocated) AS nanos
),
runs AS (
    SELECT to_nanos(coalesce(sum(effective_cost), 0)) AS nanos FROM cost_per_run
),
-- Per hour: every hour's spread rows against where the allocation put them.
hour_sides AS (
    SELECT hour, effective_nanos AS billed, 0 AS placed FROM billing_hourly
    UNION ALL
    SELECT hour, 0, effective_nanos FROM resource_hour_pool
    UNION ALL
    SELECT hour, 0, effective_nanos FROM billing_hourly WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT hour, 0, fee_share_nanos FROM commitment_allocation WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT hour, 0, nanos FROM shared_parts
    UNION ALL
    SELECT hour, 0, unused_nanos FROM commitment_hourly
    UNION ALL
    SELECT hour, 0, effective_nanos FROM billing_hourly WHERE row_kind = 'unused_reservation'
),
hours AS (
    SELECT hour, sum(placed) - sum(billed) AS off FROM hour_sides GROUP BY hour
),
checks AS (
    SELECT 'spread rows add up to the export' AS check_name, (SELECT nanos FROM export) AS expected, (SELECT nanos FROM spread) AS actual
    UNION ALL
    SELECT 'pools + direct + unused commitment + unused reservation + rows without a resource = export',
           (SELECT nanos FROM export),
           (SELECT nanos FROM pooled) + (SELECT nanos FROM direct) + (SELECT nanos FROM unused_commitment)
             + (SELECT nanos FROM unused_reservation) + (SELECT nanos FROM no_resource)
    UNION ALL
    SELECT 'runs + unallocated idle + unused commitment + unused reservation + rows without a resource = export',
           (SELECT nanos FROM export),
           (SELECT nanos FROM runs) + (SELECT nanos FROM unallocated) + (SELECT nanos FROM unused_commitment)
             + (SELECT nanos FROM unused_reservation) + (SELECT nanos FROM no_resource)
    UNION ALL
    SELECT 'every hour closes (sum over hours of |placed - spread|)',
           0,
           (SELECT coalesce(sum(abs(off)), 0) FROM hours)
)
SELECT
    check_name,
    from_nanos(expected) AS expected,
    from_nanos(actual) AS actual,
    from_nanos(actual - expected) AS difference
FROM checks
