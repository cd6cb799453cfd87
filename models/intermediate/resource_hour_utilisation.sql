-- @table: One accelerator resource and UTC hour: the bill's paid and allocated accelerator-seconds beside the telemetry's busy seconds, and the busy fraction credited to the runs that held it. Telemetry cannot tell which accelerators a run held, so busy time is credited to held accelerators first.
-- @grain day: hour
-- @col project_id: Project of the resource.
-- @col resource_name: The resource.
-- @col hour: UTC hour (start).
-- @col paid_accelerator_seconds: Accelerator-seconds paid.
-- @col allocated_accelerator_seconds: Paid accelerator-seconds held by runs.
-- @col observed_accelerator_seconds: Accelerator-seconds with telemetry.
-- @col busy_accelerator_seconds: Busy accelerator-seconds, extrapolated from the observed part to all paid time.
-- @col telemetry_coverage: observed / paid, capped at 1 (0 without telemetry).
-- @col held_busy_micros: Busy fraction of the held accelerator-seconds, in millionths (0 to 1,000,000): min(1, busy / allocated); null without telemetry.
-- @col busy_source: Where the busy figure came from.
-- @col energy_j: GPU energy of the resource-hour, joules.
WITH allocated AS (
    SELECT project_id, resource_name, hour, sum(allocated_accelerator_nanos) AS allocated_nanos
    FROM run_allocation
    GROUP BY ALL
),
names AS (
    SELECT resource_name, count(DISTINCT project_id) AS projects_with_name
    FROM resource_hour_pool
    GROUP BY resource_name
),
-- Telemetry without a project matches its resource name only when one project bills that
-- name; all telemetry rows of a resource-hour are summed into one (a node that learnt its
-- project mid-hour must not count twice).
busy AS (
    SELECT
        p.project_id,
        p.resource_name,
        p.hour,
        sum(b.observed_accelerator_seconds) AS observed_s,
        CAST(sum(CAST(b.busy_accelerator_seconds AS DECIMAL(38, 12))) AS DOUBLE) AS busy_observed_s,  -- exact decimal sums: rerun-stable
        max(b.busy_source) AS busy_source,
        CAST(sum(CAST(b.energy_j AS DECIMAL(38, 12))) AS DOUBLE) AS energy_j
    FROM resource_hour_pool AS p
    JOIN names AS n USING (resource_name)
    JOIN resource_hour_busy AS b
        ON b.resource_name = p.resource_name
       AND b.hour = p.hour
       AND (b.project_id = p.project_id OR (b.project_id IS NULL AND n.projects_with_name = 1))
    GROUP BY p.project_id, p.resource_name, p.hour
),
joined AS (
    SELECT
        p.project_id,
        p.resource_name,
        p.hour,
        CAST(p.paid_accelerator_nanos AS DOUBLE) / 1e9 AS paid_s,
        CAST(coalesce(a.allocated_nanos, 0) AS DOUBLE) / 1e9 AS allocated_s,
        b.observed_s,
        b.busy_observed_s,
        b.busy_source,
        b.energy_j
    FROM resource_hour_pool AS p
    LEFT JOIN allocated AS a USING (project_id, resource_name, hour)
    LEFT JOIN busy AS b USING (project_id, resource_name, hour)
    WHERE p.paid_accelerator_nanos > 0
)
SELECT
    project_id,
    resource_name,
    hour,
    paid_s AS paid_accelerator_seconds,
    allocated_s AS allocated_accelerator_seconds,
    coalesce(observed_s, 0) AS observed_accelerator_seconds,
    CASE WHEN observed_s > 0 THEN least(busy_observed_s / observed_s, 1.0) * paid_s END AS busy_accelerator_seconds,
    CASE WHEN paid_s > 0 THEN least(coalesce(observed_s, 0) / paid_s, 1.0) ELSE 0 END AS telemetry_coverage,
    CASE WHEN observed_s > 0 AND allocated_s > 0
         THEN CAST(round(least(busy_observed_s / observed_s * paid_s / allocated_s, 1.0) * 1e6) AS BIGINT) END AS held_busy_micros,
    busy_source,
    energy_j
FROM joined
