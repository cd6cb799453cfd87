-- @query: One row: where the effective cost went: to runs (and how many runs have a cost),
--   to idle capacity (allocated and unallocated, unused commitment and reservation), the paid and idle accelerator-hours,
--   whether the books close, and the bill's effective cost (USD: Google's export and every FOCUS provider's rows, each to the nano-dollar).
SELECT
    (SELECT sum(effective_cost) FROM cost_per_run) AS runs,
    (SELECT count(*) FROM cost_per_run WHERE effective_cost <> 0) AS run_count,
    (SELECT sum(unallocated_idle_cost) FROM idle_capacity) AS unallocated_idle,
    (SELECT sum(allocated_idle_cost) FROM idle_capacity) AS allocated_idle,
    (SELECT sum(paid_accelerator_hours) FROM idle_capacity) AS paid_hours,
    (SELECT sum(unallocated_idle_hours) FROM idle_capacity) AS idle_hours,
    (SELECT coalesce(sum(unused_cost), 0) FROM unused_capacity WHERE idle_kind = 'unused_commitment') AS unused_commitment,
    (SELECT coalesce(sum(unused_cost), 0) FROM unused_capacity WHERE idle_kind = 'unused_reservation') AS unused_reservation,
    (SELECT bool_and(difference = 0) FROM books) AS books_close,
    (SELECT sum(e) FROM (
        SELECT cost_usd + credits_total_usd AS e FROM billing_line_items
        UNION ALL
        SELECT from_nanos(to_nanos(coalesce(effective_cost, billed_cost))) FROM focus_line_items)) AS effective
