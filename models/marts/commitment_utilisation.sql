-- @table: One commitment (its fee SKU, region and term) and UTC day: what was committed, how much of it was used, what it cost, what it saved against on-demand, what went unused, and which teams' runs consumed it. USD.
-- @grain day: day
-- @col day: UTC day.
-- @col commitment_id: The commitment (its fee rows' resource, else account/region/kind/SKU).
-- @col sku_description: The fee's SKU.
-- @col region: Region of the commitment.
-- @col term: 1 Year, 3 Years (from the SKU), null when the SKU does not say.
-- @col project_id: Project the fee is billed to.
-- @col resource_kind: Accelerator type, cores or memory.
-- @col committed_accelerator_hours: Accelerator-hours committed (null for cores and memory commitments).
-- @col used_accelerator_hours: Committed accelerator-hours that usage with the commitment's credit used (at most the committed hours, hour by hour).
-- @col hours_used: UTC hours of the day in which some usage got the commitment's credit.
-- @col utilisation_pct: Used / committed quantity, percent (hour by hour, usage above the committed quantity not counted).
-- @col fee: The commitment's effective fee for the day (USD).
-- @col savings: What its credits took off on-demand prices on the usage that used it (USD, positive: a saving).
-- @col net_savings: savings - fee (USD): what the commitment saved after paying for it (negative: it cost more than on-demand).
-- @col unused_cost: The fee no usage took: unused commitment (USD).
-- @col teams: Teams whose runs held the resources that used it (comma-separated, sorted).
WITH daily AS (
    SELECT
        CAST(hour AS DATE) AS day,
        commitment_id,
        max(sku_description) AS sku_description,
        max(region) AS region,
        max(term) AS term,
        max(project_id) AS project_id,
        max(resource_kind) AS resource_kind,
        sum(committed_nanos) AS committed_nanos,
        sum(least(used_nanos, committed_nanos)) AS used_nanos,
        count(*) FILTER (WHERE used_nanos > 0) AS hours_used,
        sum(fee_nanos) AS fee_nanos,
        sum(unused_nanos) AS unused_nanos
    FROM commitment_hourly
    GROUP BY ALL
),
credits AS (
    SELECT CAST(hour AS DATE) AS day, commitment_id, sum(credit_nanos) AS credit_nanos
    FROM commitment_allocation
    GROUP BY ALL
),
consumers AS (
    SELECT c.commitment_id, CAST(c.hour AS DATE) AS day, j.team
    FROM commitment_allocation AS c
    JOIN run_allocation AS r
        ON r.project_id = c.project_id AND r.resource_name = c.resource_name AND r.hour = c.hour
    JOIN jobs AS j USING (run_id)
    WHERE r.held_accelerator_seconds > 0
    UNION
    SELECT c.commitment_id, CAST(c.hour AS DATE) AS day, j.team
    FROM commitment_allocation AS c
    JOIN jobs AS j ON j.run_id = c.direct_run_id
),
teams AS (
    SELECT commitment_id, day, string_agg(DISTINCT coalesce(team, '__unallocated__'), ', ' ORDER BY coalesce(team, '__unallocated__')) AS teams
    FROM consumers
    GROUP BY ALL
)
SELECT
    d.day,
    d.commitment_id,
    d.sku_description,
    d.region,
    d.term,
    d.project_id,
    d.resource_kind,
    CASE WHEN d.resource_kind NOT IN ('cores', 'memory') THEN CAST(d.committed_nanos AS DOUBLE) / 3.6e12 END AS committed_accelerator_hours,
    CASE WHEN d.resource_kind NOT IN ('cores', 'memory') THEN CAST(d.used_nanos AS DOUBLE) / 3.6e12 END AS used_accelerator_hours,
    d.hours_used,
    CASE WHEN d.committed_nanos > 0 THEN 100 * CAST(d.used_nanos AS DOUBLE) / CAST(d.committed_nanos AS DOUBLE) END AS utilisation_pct,
    from_nanos(d.fee_nanos) AS fee,
    from_nanos(-coalesce(c.credit_nanos, 0)) AS savings,
    from_nanos(-coalesce(c.credit_nanos, 0) - d.fee_nanos) AS net_savings,
    from_nanos(d.unused_nanos) AS unused_cost,
    t.teams
FROM daily AS d
LEFT JOIN credits AS c USING (day, commitment_id)
LEFT JOIN teams AS t USING (day, commitment_id)
ORDER BY d.day, d.commitment_id
