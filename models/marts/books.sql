-- @table: The reconciliation, one row per check: the export's effective total against what the allocation put where. Every difference must be exactly zero.
-- @depends: billing_line_items, billing_hourly, resource_hour_pool, run_allocation, run_direct_costs, cost_per_run
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
no_resource AS (
    SELECT coalesce(sum(effective_nanos), 0) AS nanos FROM billing_hourly WHERE resource_name IS NULL AND direct_run_id IS NULL
),
unallocated AS (
    SELECT (SELECT nanos FROM pooled) - (SELECT nanos FROM allocated) AS nanos
),
runs AS (
    SELECT to_nanos(coalesce(sum(effective_cost), 0)) AS nanos FROM cost_per_run
),
checks AS (
    SELECT 'spread rows add up to the export' AS check_name, (SELECT nanos FROM export) AS expected, (SELECT nanos FROM spread) AS actual
    UNION ALL
    SELECT 'pools + direct + rows without a resource = export',
           (SELECT nanos FROM export),
           (SELECT nanos FROM pooled) + (SELECT nanos FROM direct) + (SELECT nanos FROM no_resource)
    UNION ALL
    SELECT 'runs + unallocated idle + rows without a resource = export',
           (SELECT nanos FROM export),
           (SELECT nanos FROM runs) + (SELECT nanos FROM unallocated) + (SELECT nanos FROM no_resource)
)
SELECT
    check_name,
    from_nanos(expected) AS expected,
    from_nanos(actual) AS actual,
    from_nanos(actual - expected) AS difference
FROM checks
