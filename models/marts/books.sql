-- @table: The reconciliation, one row per check: the bill's effective total (Google's export and every FOCUS provider's rows, each FOCUS row to the nano-dollar) against what the allocation put where, in total, every hour of every provider, and for each provider on its own (a row per provider: its runs + unallocated idle + unused commitment + unused reservation + rows without a resource = its bill). Every difference must be exactly zero.
-- @check books_close (error, blocking): Every reconciliation difference is exactly zero.
-- @check quarantine_is_empty (warn): Quarantined input rows, per source (reported).
-- @col check_name: What is compared.
-- @col expected: The export's side (USD).
-- @col actual: The allocation's side (USD).
-- @col difference: actual - expected (USD): zero when the books close.
WITH export_by_provider AS (
    SELECT provider, to_nanos(sum(cost_usd + credits_total_usd)) AS nanos FROM billing_line_items GROUP BY provider
    UNION ALL
    SELECT provider_name, sum(to_nanos(coalesce(effective_cost, billed_cost))) FROM focus_line_items GROUP BY provider_name
),
export AS (
    SELECT coalesce(sum(nanos), 0) AS nanos FROM export_by_provider
),
-- Which provider bills each commitment (its fee rows'): fee shares and unused commitment are that provider's.
commitment_provider AS (
    SELECT commitment_id, max(provider) AS provider FROM billing_hourly WHERE row_kind = 'commitment_fee' GROUP BY commitment_id
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
    SELECT provider, hour, effective_nanos AS nanos FROM billing_hourly
    WHERE resource_name IS NULL AND direct_run_id IS NULL AND row_kind = 'usage'
    UNION ALL
    SELECT m.provider, c.hour, c.fee_share_nanos FROM commitment_allocation AS c
    LEFT JOIN commitment_provider AS m USING (commitment_id)
    WHERE c.resource_name IS NULL AND c.direct_run_id IS NULL
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
-- Per provider and hour: every hour's spread rows against where the allocation put them.
direct_parts AS (
    SELECT provider, hour, effective_nanos AS nanos FROM billing_hourly WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT m.provider, c.hour, c.fee_share_nanos FROM commitment_allocation AS c
    LEFT JOIN commitment_provider AS m USING (commitment_id)
    WHERE c.direct_run_id IS NOT NULL
),
pool_parts AS (
    -- A pool's fee shares are its provider's (a resource-hour holding only fee shares: the commitment's).
    SELECT coalesce(p.provider, 'gcp') AS provider, p.hour, p.effective_nanos AS pooled, coalesce(a.nanos, 0) AS allocated
    FROM resource_hour_pool AS p
    LEFT JOIN (SELECT project_id, resource_name, hour, sum(allocated_nanos) AS nanos FROM run_allocation GROUP BY ALL) AS a
        USING (project_id, resource_name, hour)
),
hour_sides AS (
    SELECT provider, hour, effective_nanos AS billed, 0 AS placed FROM billing_hourly
    UNION ALL
    SELECT provider, hour, 0, pooled FROM pool_parts
    UNION ALL
    SELECT provider, hour, 0, nanos FROM direct_parts
    UNION ALL
    SELECT provider, hour, 0, nanos FROM shared_parts
    UNION ALL
    SELECT provider, hour, 0, unused_nanos FROM commitment_hourly
    UNION ALL
    SELECT provider, hour, 0, effective_nanos FROM billing_hourly WHERE row_kind = 'unused_reservation'
),
hours AS (
    SELECT provider, hour, sum(placed) - sum(billed) AS off FROM hour_sides GROUP BY provider, hour
),
-- Each provider's books: runs (allocated + direct) + unallocated idle + unused commitment + unused reservation + rows without a resource.
provider_sides AS (
    SELECT provider, nanos AS billed, 0 AS placed FROM export_by_provider
    UNION ALL
    SELECT provider, 0, allocated FROM pool_parts
    UNION ALL
    SELECT provider, 0, pooled - allocated FROM pool_parts
    UNION ALL
    SELECT provider, 0, nanos FROM direct_parts
    UNION ALL
    SELECT provider, 0, nanos FROM shared_parts
    UNION ALL
    SELECT provider, 0, unused_nanos FROM commitment_hourly
    UNION ALL
    SELECT provider, 0, effective_nanos FROM billing_hourly WHERE row_kind = 'unused_reservation'
),
providers AS (
    SELECT provider, sum(billed) AS billed, sum(placed) AS placed FROM provider_sides GROUP BY provider
),
checks AS (
    SELECT 1 AS ord, 'spread rows add up to the export' AS check_name, (SELECT nanos FROM export) AS expected, (SELECT nanos FROM spread) AS actual
    UNION ALL
    SELECT 2, 'pools + direct + unused commitment + unused reservation + rows without a resource = export',
           (SELECT nanos FROM export),
           (SELECT nanos FROM pooled) + (SELECT nanos FROM direct) + (SELECT nanos FROM unused_commitment)
             + (SELECT nanos FROM unused_reservation) + (SELECT nanos FROM no_resource)
    UNION ALL
    SELECT 3, 'runs + unallocated idle + unused commitment + unused reservation + rows without a resource = export',
           (SELECT nanos FROM export),
           (SELECT nanos FROM runs) + (SELECT nanos FROM unallocated) + (SELECT nanos FROM unused_commitment)
             + (SELECT nanos FROM unused_reservation) + (SELECT nanos FROM no_resource)
    UNION ALL
    SELECT 4, 'every hour closes (sum over hours of |placed - spread|)',
           0,
           (SELECT coalesce(sum(abs(off)), 0) FROM hours)
    UNION ALL
    SELECT 5, coalesce(provider, '(none)') || ': runs + unallocated idle + unused commitment + unused reservation + rows without a resource = its bill',
           billed,
           placed
    FROM providers
)
SELECT
    check_name,
    from_nanos(expected) AS expected,
    from_nanos(actual) AS actual,
    from_nanos(actual - expected) AS difference
FROM checks
ORDER BY ord, check_name
