-- @table: Idle of the two kinds that belong to no resource-hour, per UTC hour: unused commitment (the part of a commitment's fee no usage took) and unused reservation (reserved capacity no VM consumed, attributed to its reservation and project). Shown beside unallocated idle (idle_capacity), never in shared cost. USD.
-- @grain day: hour
-- @col hour: UTC hour (start).
-- @col idle_kind: unused_commitment or unused_reservation.
-- @col project_id: Project of the commitment's fee, or of the reservation.
-- @col name: The commitment (commitment_id) or the reservation.
-- @col resource_kind: Accelerator type, cores or memory (null: other).
-- @col unused_accelerator_hours: Accelerator-hours committed and not used, or reserved and not consumed (accelerators only).
-- @col unused_cost: Effective cost of what went unused (USD).
-- @col provider: Who bills the commitment or the reservation: gcp, or the FOCUS ProviderName (AWS, Microsoft, Oracle ...).
SELECT
    hour,
    'unused_commitment' AS idle_kind,
    project_id,
    commitment_id AS name,
    resource_kind,
    CASE WHEN resource_kind NOT IN ('cores', 'memory')
         THEN CAST(greatest(committed_nanos - used_nanos, 0) AS DOUBLE) / 3.6e12 END AS unused_accelerator_hours,
    from_nanos(unused_nanos) AS unused_cost,
    provider
FROM commitment_hourly
UNION ALL
SELECT
    hour,
    'unused_reservation' AS idle_kind,
    reservation_project_id AS project_id,
    reservation_name AS name,
    max(resource_kind) AS resource_kind,
    CASE WHEN sum(paid_accelerator_nanos) > 0 THEN CAST(sum(paid_accelerator_nanos) AS DOUBLE) / 3.6e12 END AS unused_accelerator_hours,
    from_nanos(sum(effective_nanos)) AS unused_cost,
    max(provider) AS provider
FROM billing_hourly
WHERE row_kind = 'unused_reservation'
GROUP BY hour, reservation_project_id, reservation_name
ORDER BY hour, idle_kind, project_id, name
