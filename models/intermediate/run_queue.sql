-- @table: One run that waited in the queue for accelerators: from its submission to the end of its queue (when it started; a run that never started (still pending, or cancelled / timed out in the queue) waited until it ended, else, still pending, until the end of the last hour paid for accelerators: what the books know of), and the whole accelerators it asked for, as accelerators_num / accelerators_den. commitment_demand_hourly splits each queue over its hours; its check adds them up against this table.
-- @grain run: run_id
-- @col run_id: The run.
-- @col accelerator_type: Canonical accelerator type it asked for.
-- @col submitted_at: Submission time (UTC).
-- @col queue_end: When its queue ended (UTC): its start, else its end, else the end of the last paid hour.
-- @col accelerators_num: accelerator_count x the share of an accelerator its placements held, numerator: a MIG run of four 1g.10gb slices of an H100 asks for 4/7 of a GPU (whole accelerators: accelerator_count / 1; a run that never started has no placements: share 1).
-- @col accelerators_den: The share's denominator: the product of the run's distinct slice denominators x its placements' accelerators (1 without placements).

-- The share of an accelerator a run's placements held, as share_num / share_den: the
-- placements' accelerators weighted by their share (MIG: numerator / denominator, whole
-- accelerators 1/1) over their accelerators. jobs.accelerator_count counts a MIG slice as
-- one; x this share it is whole accelerators. Exact: share_den is the product of the
-- run's distinct denominators (7 for a MIG run) x its placements' accelerators.
WITH run_share_dens AS (
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
-- The end of the span: the end of the last hour paid for accelerators.
span_end AS (
    SELECT max(hour) + INTERVAL 1 HOUR AS span_end
    FROM resource_hour_pool
    WHERE accelerator_type IS NOT NULL
),
runs_queue AS (
    SELECT j.*, coalesce(j.started_at, j.ended_at, e.span_end) AS queue_end
    FROM jobs AS j, span_end AS e
)
SELECT
    j.run_id,
    j.accelerator_type,
    j.submitted_at,
    j.queue_end,
    CAST(j.accelerator_count AS HUGEINT) * coalesce(s.share_num, 1) AS accelerators_num,
    coalesce(s.share_den, 1) AS accelerators_den
FROM runs_queue AS j
LEFT JOIN run_share AS s USING (run_id)
WHERE j.queue_end > j.submitted_at AND j.accelerator_type IS NOT NULL AND j.accelerator_count > 0
