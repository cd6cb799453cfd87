-- @query: One row: the idle figures of docs/glossary.md over accelerator resource-hours, for one project or all ($project null) and a window of UTC days or all ($window_start / $window_end null): accelerator resource cost, unallocated and allocated idle cost (USD), paid and unallocated idle accelerator-hours, the three shares (unallocated idle share of cost, idle share of cost, unallocated idle share of hours; null without a denominator), which are of accelerator resource-hours only, and beside them the two idle kinds that belong to no resource-hour and are in none of the shares: unused commitment and unused reservation cost (USD, unused_capacity; 0 when none).
-- @param project: a project id, or null for every project (VARCHAR).
-- @param window_start: the first day of the window, or null (DATE).
-- @param window_end: the first day after the window, or null (DATE).
WITH chosen AS (
    SELECT *
    FROM idle_capacity_daily
    WHERE (CAST($project AS VARCHAR) IS NULL OR project_id = CAST($project AS VARCHAR))
      AND (CAST($window_start AS DATE) IS NULL OR day >= CAST($window_start AS DATE))
      AND (CAST($window_end AS DATE) IS NULL OR day < CAST($window_end AS DATE))
),
unused AS (
    SELECT
        coalesce(sum(unused_cost) FILTER (WHERE idle_kind = 'unused_commitment'), 0) AS unused_commitment_cost,
        coalesce(sum(unused_cost) FILTER (WHERE idle_kind = 'unused_reservation'), 0) AS unused_reservation_cost
    FROM unused_capacity
    WHERE (CAST($project AS VARCHAR) IS NULL OR project_id = CAST($project AS VARCHAR))
      AND (CAST($window_start AS DATE) IS NULL OR CAST(hour AS DATE) >= CAST($window_start AS DATE))
      AND (CAST($window_end AS DATE) IS NULL OR CAST(hour AS DATE) < CAST($window_end AS DATE))
)
SELECT
    sum(effective_cost) AS accelerator_cost,
    sum(unallocated_idle_cost) AS unallocated_idle_cost,
    sum(allocated_idle_cost) AS allocated_idle_cost,
    sum(paid_accelerator_hours) AS paid_hours,
    sum(unallocated_idle_hours) AS unallocated_idle_hours,
    CAST(sum(unallocated_idle_cost) AS DOUBLE) / nullif(CAST(sum(effective_cost) AS DOUBLE), 0) AS unallocated_idle_share_of_cost,
    CAST(sum(unallocated_idle_cost) + coalesce(sum(allocated_idle_cost), 0) AS DOUBLE) / nullif(CAST(sum(effective_cost) AS DOUBLE), 0) AS idle_share_of_cost,
    sum(unallocated_idle_hours) / nullif(sum(paid_accelerator_hours), 0) AS unallocated_idle_share_of_hours,
    (SELECT unused_commitment_cost FROM unused) AS unused_commitment_cost,
    (SELECT unused_reservation_cost FROM unused) AS unused_reservation_cost
FROM chosen
