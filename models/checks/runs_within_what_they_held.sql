-- @query: One row when some runs are allocated more accelerator-hours than they held: how many.
-- @row: {n} runs above what they held
SELECT count(*) AS n
FROM cost_per_run
WHERE allocated_accelerator_hours > accelerator_hours + 1e-9
HAVING count(*) > 0
