-- @table: One accelerator type, region and UTC hour of the fleet's span (every hour from the first to the last, zero-demand hours included): the demand a commitment would serve, d = paid accelerator-hours + accelerator-hours requested by runs waiting in the queue, beside what runs held, what telemetry showed busy and what failed runs held. The commitment planner's input (docs/commitments.md).
-- @check commitment_demand_reconciles (warn): Paid and queued demand add up to resource_hour_pool's paid accelerator-seconds and the jobs' queue time x accelerators, per accelerator type, exactly.
-- @col accelerator_type: Canonical accelerator type.
-- @col region: Region of the resources billed for it (a queued run: the region of the resources it later held, else the type's only region, else 'unknown').
-- @col hour: UTC hour (start).
-- @col paid_accelerator_nanos: Accelerator-seconds paid in the hour x 1e9 (resource_hour_pool; idle_capacity's paid_accelerator_hours x 3.6e12).
-- @col queued_accelerator_nanos: Accelerator-seconds requested by runs waiting in the queue in the hour x 1e9: the part of [submitted_at, started_at) in the hour x accelerators requested, in whole accelerators: accelerator_count x the share its placements held (a MIG run of four 1g.10gb slices of an H100 asks for 4/7 of a GPU, not 4; whole accelerators: x 1). A run's queue ends when it started; a run that never started (still pending, or cancelled / timed out in the queue) waited until it ended, else (still pending) until the end of the span (the end of the last paid hour): work the fleet did not serve. Its queue is floor(queue seconds x 1e9 x accelerators x share) in all, split over its hours by running sums so the hours add up to it (a run that never started has no placements: share 1).
-- @col demand_accelerator_nanos: paid + queued (d, accelerator-seconds x 1e9).
-- @col failed_accelerator_nanos: Paid accelerator-seconds x 1e9 allocated to runs that failed (the hours a commitment would not have to serve had they not been spent).
-- @col allocated_accelerator_hours: Paid accelerator-hours held by runs.
-- @col telemetry_allocated_accelerator_hours: Of those, the ones on resource-hours with telemetry (busy share's denominator).
-- @col busy_accelerator_hours: Allocated accelerator-hours telemetry showed busy (null: no telemetry in the hour).
-- @col demand_accelerator_hours: demand_accelerator_nanos / 3.6e12 (for reading; the planner uses the nanos).
WITH resource_region AS (
    SELECT project_id, resource_name, hour, max(region) AS region
    FROM billing_hourly
    WHERE row_kind = 'usage' AND accelerator_type IS NOT NULL AND resource_name IS NOT NULL
    GROUP BY ALL
),
paid AS (
    SELECT
        p.accelerator_type,
        coalesce(r.region, 'unknown') AS region,
        p.hour,
        sum(p.paid_accelerator_nanos) AS paid_nanos
    FROM resource_hour_pool AS p
    LEFT JOIN resource_region AS r USING (project_id, resource_name, hour)
    WHERE p.accelerator_type IS NOT NULL
    GROUP BY ALL
),
held AS (
    SELECT
        i.accelerator_type,
        coalesce(r.region, 'unknown') AS region,
        i.hour,
        -- float hours added as exact decimals, so reruns give the same digits
        CAST(sum(CAST(i.allocated_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS allocated_hours,
        CAST(sum(CAST(i.allocated_accelerator_hours AS DECIMAL(38, 12))) FILTER (WHERE i.busy_accelerator_hours IS NOT NULL) AS DOUBLE) AS telemetry_allocated_hours,
        CAST(sum(CAST(i.busy_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS busy_hours
    FROM idle_capacity AS i
    LEFT JOIN resource_region AS r USING (project_id, resource_name, hour)
    WHERE i.accelerator_type IS NOT NULL
    GROUP BY ALL
),
failed AS (
    SELECT
        p.accelerator_type,
        coalesce(r.region, 'unknown') AS region,
        a.hour,
        sum(a.allocated_accelerator_nanos) AS failed_nanos
    FROM run_allocation AS a
    JOIN jobs AS j ON j.run_id = a.run_id
    JOIN resource_hour_pool AS p
        ON p.project_id = a.project_id AND p.resource_name = a.resource_name AND p.hour = a.hour
    LEFT JOIN resource_region AS r
        ON r.project_id = a.project_id AND r.resource_name = a.resource_name AND r.hour = a.hour
    WHERE j.status = 'failed' AND p.accelerator_type IS NOT NULL
    GROUP BY ALL
),
type_regions AS (
    SELECT accelerator_type, min(region) AS only_region
    FROM paid
    GROUP BY accelerator_type
    HAVING count(DISTINCT region) = 1
),
run_region AS (
    SELECT h.run_id, min(r.region) AS region
    FROM run_held_hours AS h
    JOIN resource_region AS r USING (project_id, resource_name, hour)
    GROUP BY h.run_id
),
waiting AS (
    SELECT
        j.run_id,
        j.accelerator_type,
        coalesce(rr.region, t.only_region, 'unknown') AS region,
        j.submitted_at,
        j.queue_end,
        j.accelerators_num,
        j.accelerators_den
    FROM run_queue AS j
    LEFT JOIN run_region AS rr USING (run_id)
    LEFT JOIN type_regions AS t USING (accelerator_type)
),
waiting_hours AS (
    SELECT
        w.run_id,
        w.accelerator_type,
        w.region,
        q.hour,
        w.accelerators_num,
        w.accelerators_den,
        -- queue nanoseconds of the run up to the end of this hour
        sum(span_us(greatest(w.submitted_at, q.hour), least(w.queue_end, q.hour + INTERVAL 1 HOUR)) * 1000)
            OVER (PARTITION BY w.run_id ORDER BY q.hour ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS through_ns,
        span_us(greatest(w.submitted_at, q.hour), least(w.queue_end, q.hour + INTERVAL 1 HOUR)) * 1000 AS hour_ns
    -- a CROSS JOIN of UNNEST (not LATERAL, which BigQuery has not): one row per hour waited
    FROM waiting AS w
        CROSS JOIN unnest(generate_series(date_trunc('hour', w.submitted_at), w.queue_end - INTERVAL 1 MICROSECOND, INTERVAL 1 HOUR)) AS q(hour)
),
queued AS (
    SELECT
        accelerator_type,
        region,
        hour,
        sum(CAST(through_ns AS HUGEINT) * accelerators_num // accelerators_den
            - CAST(through_ns - hour_ns AS HUGEINT) * accelerators_num // accelerators_den) AS queued_nanos
    FROM waiting_hours
    GROUP BY ALL
),
span AS (
    SELECT min(hour) AS first_hour, max(hour) AS last_hour
    FROM (SELECT hour FROM paid UNION ALL SELECT hour FROM queued)
),
series AS (
    SELECT DISTINCT accelerator_type, region FROM paid
    UNION
    SELECT DISTINCT accelerator_type, region FROM queued
),
spine AS (
    SELECT s.accelerator_type, s.region, unnest(generate_series(sp.first_hour, sp.last_hour, INTERVAL 1 HOUR)) AS hour
    FROM series AS s, span AS sp
)
SELECT
    s.accelerator_type,
    s.region,
    s.hour,
    coalesce(p.paid_nanos, 0) AS paid_accelerator_nanos,
    coalesce(q.queued_nanos, 0) AS queued_accelerator_nanos,
    coalesce(p.paid_nanos, 0) + coalesce(q.queued_nanos, 0) AS demand_accelerator_nanos,
    coalesce(f.failed_nanos, 0) AS failed_accelerator_nanos,
    coalesce(h.allocated_hours, 0) AS allocated_accelerator_hours,
    coalesce(h.telemetry_allocated_hours, 0) AS telemetry_allocated_accelerator_hours,
    h.busy_hours AS busy_accelerator_hours,
    CAST(coalesce(p.paid_nanos, 0) + coalesce(q.queued_nanos, 0) AS DOUBLE) / 3.6e12 AS demand_accelerator_hours
FROM spine AS s
LEFT JOIN paid AS p USING (accelerator_type, region, hour)
LEFT JOIN queued AS q USING (accelerator_type, region, hour)
LEFT JOIN failed AS f USING (accelerator_type, region, hour)
LEFT JOIN held AS h USING (accelerator_type, region, hour)
ORDER BY s.accelerator_type, s.region, s.hour
