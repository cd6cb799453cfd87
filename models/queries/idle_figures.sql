-- @query: The idle figures of docs/glossary.md over the accelerator resource-hours of the UTC
--   days in [$start_day, $end_day] (null: no bound) of the chosen providers, projects and
--   accelerator types (idle_capacity_daily): one row ($group_by null; group_value null, and the
--   row is there even without capacity), or one per provider, accelerator type or project.
--   Accelerator resource cost, unallocated and allocated idle cost (USD; allocated idle null
--   without telemetry), paid, allocated, busy and unallocated idle accelerator-hours, the three
--   shares (unallocated idle share of cost, idle share of cost, unallocated idle share of hours;
--   null without a denominator; allocated idle counts 0 until telemetry lands), which are of
--   accelerator resource-hours only, and beside them the two idle kinds that belong to no
--   resource-hour and are in none of the shares: unused commitment and unused reservation cost
--   (USD, unused_capacity by its hour's day; 0 when none). The one query of these figures: the
--   CLI, the Overview and Idle pages, the idle-share alert rule and the month report run it.
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param providers: the providers chosen (VARCHAR[]; empty: all).
-- @param projects: the projects chosen (VARCHAR[]; empty: all).
-- @param accelerators: the accelerator types chosen (VARCHAR[]; empty: all; unused capacity by
--   the kind it reserved or committed).
-- @param group_by: provider, accelerator_type or project_id; null for one row.
-- The group is chosen in a subquery and grouped by outside it (portable SQL: bqemulator binds
-- `GROUP BY` of a CASE over a parameter as the columns inside it).
WITH parts AS (
    SELECT
        CASE $group_by
            WHEN 'provider' THEN i.provider
            WHEN 'accelerator_type' THEN i.accelerator_type
            WHEN 'project_id' THEN i.project_id
        END AS group_value,
        i.effective_cost,
        i.unallocated_idle_cost,
        i.allocated_idle_cost,
        i.paid_accelerator_hours,
        i.allocated_accelerator_hours,
        i.busy_accelerator_hours,
        i.unallocated_idle_hours,
        CAST(NULL AS DECIMAL(38, 9)) AS unused_commitment_cost,
        CAST(NULL AS DECIMAL(38, 9)) AS unused_reservation_cost
    FROM idle_capacity_daily AS i
    WHERE (CAST($start_day AS DATE) IS NULL OR i.day >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR i.day <= CAST($end_day AS DATE))
      AND (array_length(CAST($providers AS VARCHAR[])) = 0 OR list_contains(CAST($providers AS VARCHAR[]), i.provider))
      AND (array_length(CAST($projects AS VARCHAR[])) = 0 OR list_contains(CAST($projects AS VARCHAR[]), i.project_id))
      AND (array_length(CAST($accelerators AS VARCHAR[])) = 0 OR list_contains(CAST($accelerators AS VARCHAR[]), i.accelerator_type))
    UNION ALL
    SELECT
        CASE $group_by
            WHEN 'provider' THEN u.provider
            WHEN 'accelerator_type' THEN u.resource_kind
            WHEN 'project_id' THEN u.project_id
        END,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        CASE WHEN u.idle_kind = 'unused_commitment' THEN u.unused_cost ELSE 0 END,
        CASE WHEN u.idle_kind = 'unused_reservation' THEN u.unused_cost ELSE 0 END
    FROM unused_capacity AS u
    WHERE (CAST($start_day AS DATE) IS NULL OR CAST(u.hour AS DATE) >= CAST($start_day AS DATE))
      AND (CAST($end_day AS DATE) IS NULL OR CAST(u.hour AS DATE) <= CAST($end_day AS DATE))
      AND (array_length(CAST($providers AS VARCHAR[])) = 0 OR list_contains(CAST($providers AS VARCHAR[]), u.provider))
      AND (array_length(CAST($projects AS VARCHAR[])) = 0 OR list_contains(CAST($projects AS VARCHAR[]), u.project_id))
      AND (array_length(CAST($accelerators AS VARCHAR[])) = 0 OR list_contains(CAST($accelerators AS VARCHAR[]), u.resource_kind))
    UNION ALL
    -- The one row is there even when nothing matched.
    SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    WHERE $group_by IS NULL
)
SELECT
    group_value,
    sum(effective_cost) AS accelerator_cost,
    sum(unallocated_idle_cost) AS unallocated_idle_cost,
    sum(allocated_idle_cost) AS allocated_idle_cost,
    sum(paid_accelerator_hours) AS paid_accelerator_hours,
    sum(allocated_accelerator_hours) AS allocated_accelerator_hours,
    sum(busy_accelerator_hours) AS busy_accelerator_hours,
    sum(unallocated_idle_hours) AS unallocated_idle_hours,
    CAST(sum(unallocated_idle_cost) AS DOUBLE) / nullif(CAST(sum(effective_cost) AS DOUBLE), 0)
        AS unallocated_idle_share_of_cost,
    CAST(sum(unallocated_idle_cost) + coalesce(sum(allocated_idle_cost), 0) AS DOUBLE)
        / nullif(CAST(sum(effective_cost) AS DOUBLE), 0) AS idle_share_of_cost,
    sum(unallocated_idle_hours) / nullif(sum(paid_accelerator_hours), 0) AS unallocated_idle_share_of_hours,
    coalesce(sum(unused_commitment_cost), 0) AS unused_commitment_cost,
    coalesce(sum(unused_reservation_cost), 0) AS unused_reservation_cost
FROM parts
GROUP BY group_value
ORDER BY unallocated_idle_cost DESC NULLS LAST, group_value
