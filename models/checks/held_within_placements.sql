-- @query: One row when some runs hold more accelerator-nanoseconds than their placements give
--   them (an open placement counted to the end of the last billed hour): how many.
-- @row: {n} runs hold more than their placements
WITH last_billed AS (SELECT max(usage_end) AS t FROM billing_line_items),
nominal AS (
    SELECT run_id, sum(CAST(accelerators AS HUGEINT) * coalesce(share_numerator, 1) * span_us(start_at,
        coalesce(end_at, date_trunc('hour', (SELECT t FROM last_billed) - INTERVAL '1' MICROSECOND)
                 + INTERVAL '1' HOUR)) * 1000 // coalesce(share_denominator, 1)) AS nanos
    FROM job_placements
    WHERE start_at IS NOT NULL
    GROUP BY run_id
),
held AS (SELECT run_id, sum(held_accelerator_nanos) AS nanos FROM run_held_hours GROUP BY run_id)
SELECT count(*) AS n
FROM held JOIN nominal USING (run_id)
WHERE held.nanos > nominal.nanos
HAVING count(*) > 0
