-- @query: One row: how many accelerator types' demand (commitment_demand_hourly) does not add up to its inputs exactly: paid accelerator-seconds x 1e9 against resource_hour_pool's, queued against the jobs' queue (submitted to started; a run that never started: to its end if it ended in the queue, else to the end of the last paid hour, as commitment_demand_hourly counts it; cost_per_run.queue_seconds is null for those runs, so this check counts their queue from jobs itself) x accelerators requested x the share their placements held (MIG slices: their share of a GPU), floored per run: the hours of a run's queue must add up to it. 0: the planner's input reconciles.
WITH demand AS (
    SELECT accelerator_type, sum(paid_accelerator_nanos) AS paid, sum(queued_accelerator_nanos) AS queued
    FROM commitment_demand_hourly
    GROUP BY accelerator_type
),
pool AS (
    SELECT accelerator_type, sum(paid_accelerator_nanos) AS paid
    FROM resource_hour_pool
    WHERE accelerator_type IS NOT NULL
    GROUP BY accelerator_type
),
run_share_dens AS (
    -- a run's share of an accelerator, as commitment_demand_hourly takes it
    SELECT run_id, CAST(product(DISTINCT coalesce(share_denominator, 1)) AS HUGEINT) AS dens
    FROM job_placements
    WHERE accelerators > 0 AND coalesce(share_numerator, 1) > 0 AND coalesce(share_denominator, 1) > 0
    GROUP BY run_id
),
run_share AS (
    SELECT
        p.run_id,
        sum(CAST(p.accelerators AS HUGEINT) * coalesce(p.share_numerator, 1) * (d.dens // coalesce(p.share_denominator, 1))) AS share_num,
        d.dens * sum(CAST(p.accelerators AS HUGEINT)) AS share_den
    FROM job_placements AS p
    JOIN run_share_dens AS d USING (run_id)
    WHERE p.accelerators > 0 AND coalesce(p.share_numerator, 1) > 0 AND coalesce(p.share_denominator, 1) > 0
    GROUP BY p.run_id, d.dens
),
span_end AS (
    -- the end of the last paid hour: a run still pending has waited until then
    SELECT max(hour) + INTERVAL 1 HOUR AS span_end
    FROM resource_hour_pool
    WHERE accelerator_type IS NOT NULL
),
runs_queue AS (
    SELECT j.*, coalesce(j.started_at, j.ended_at, e.span_end) AS queue_end
    FROM jobs AS j, span_end AS e
),
queue AS (
    SELECT
        j.accelerator_type,
        sum(CAST(span_us(j.submitted_at, j.queue_end) * 1000 AS HUGEINT) * j.accelerator_count
            * coalesce(s.share_num, 1) // coalesce(s.share_den, 1)) AS queued
    FROM runs_queue AS j
    LEFT JOIN run_share AS s USING (run_id)
    WHERE j.queue_end > j.submitted_at AND j.accelerator_type IS NOT NULL AND j.accelerator_count > 0
    GROUP BY j.accelerator_type
)
SELECT count(*) AS n
FROM demand AS d
FULL JOIN pool AS p USING (accelerator_type)
FULL JOIN queue AS q USING (accelerator_type)
WHERE coalesce(d.paid, 0) <> coalesce(p.paid, 0) OR coalesce(d.queued, 0) <> coalesce(q.queued, 0)
