-- @query: One row: how many runs are allocated more accelerator-hours than they held.
SELECT count(*) AS n
FROM cost_per_run
WHERE allocated_accelerator_hours > accelerator_hours + 1e-9
