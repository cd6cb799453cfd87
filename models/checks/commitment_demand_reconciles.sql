-- @query: One row when some accelerator types' demand (commitment_demand_hourly) does not add
--   up to its inputs exactly: paid accelerator-seconds x 1e9 against resource_hour_pool's, and
--   queued against each waiting run's whole queue (run_queue: its seconds x 1e9 x the whole
--   accelerators it asked for, floored per run), so the hours a run's queue is split over must
--   add up to it: how many types.
-- @row: {n} accelerator types do not add up
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
    SELECT
        accelerator_type,
        sum(CAST(span_us(submitted_at, queue_end) * 1000 AS HUGEINT) * accelerators_num // accelerators_den) AS queued
    FROM run_queue
    GROUP BY accelerator_type
)
SELECT count(*) AS n
FROM demand AS d
FULL JOIN pool AS p USING (accelerator_type)
FULL JOIN queue AS q USING (accelerator_type)
WHERE coalesce(d.paid, 0) <> coalesce(p.paid, 0) OR coalesce(d.queued, 0) <> coalesce(q.queued, 0)
HAVING count(*) > 0
