-- @query: One row: how many accelerator types' demand (commitment_demand_hourly) does not add up to its inputs exactly: paid accelerator-seconds x 1e9 against resource_hour_pool's, queued against the jobs' queue (submitted to started) x accelerators requested. 0: the planner's input reconciles.
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
queue AS (
    SELECT accelerator_type, sum(span_us(submitted_at, started_at) * 1000 * accelerator_count) AS queued
    FROM jobs
    WHERE started_at > submitted_at AND accelerator_type IS NOT NULL AND accelerator_count > 0
    GROUP BY accelerator_type
)
SELECT count(*) AS n
FROM demand AS d
FULL JOIN pool AS p USING (accelerator_type)
FULL JOIN queue AS q USING (accelerator_type)
WHERE coalesce(d.paid, 0) <> coalesce(p.paid, 0) OR coalesce(d.queued, 0) <> coalesce(q.queued, 0)
