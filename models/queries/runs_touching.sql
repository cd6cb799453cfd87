-- @query: The runs whose time (from submission, or its first hold, to its end or its last hold's;
--   still running: to the newest day any table has changed on) covers one of the given UTC days, with the first and last day of
--   it: what a run-grained model rebuilds when those days change.
-- @param days: the UTC days that changed (DATE[]).
WITH spans AS (
    SELECT run_id, coalesce(submitted_at, started_at) AS first_at, ended_at AS last_at, ended_at IS NULL AS open
    FROM jobs
    UNION ALL
    SELECT run_id, start_at, end_at, end_at IS NULL
    FROM job_placements
),
runs AS (
    SELECT
        run_id,
        CAST(min(first_at) AS DATE) AS first_day,
        CASE WHEN bool_or(open) THEN greatest(CAST(min(first_at) AS DATE), coalesce((SELECT max(day) FROM bookkeeping.changes), CAST(min(first_at) AS DATE)))
             ELSE CAST(max(last_at) - INTERVAL 1 MICROSECOND AS DATE) END AS last_day
    FROM spans
    WHERE first_at IS NOT NULL
    GROUP BY run_id
)
SELECT r.run_id, r.first_day, greatest(r.first_day, r.last_day) AS last_day
FROM runs AS r
WHERE EXISTS (
    SELECT 1 FROM (SELECT unnest(CAST($days AS DATE[])) AS day) AS d
    WHERE d.day >= r.first_day AND d.day <= greatest(r.first_day, r.last_day)
)
ORDER BY r.run_id
