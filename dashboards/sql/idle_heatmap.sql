-- Unallocated idle by ISO weekday (1 = Monday) and UTC hour of day. Params: filters.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators
)
SELECT
    CAST(extract(isodow FROM i.hour) AS BIGINT) AS weekday,
    CAST(extract(hour FROM i.hour) AS BIGINT) AS hour_of_day,
    sum(i.paid_accelerator_hours) AS paid_hours,
    sum(i.unallocated_idle_hours) AS unallocated_idle_hours,
    CAST(sum(i.unallocated_idle_cost) AS DOUBLE) AS unallocated_idle_usd,
    sum(i.unallocated_idle_hours) / nullif(sum(i.paid_accelerator_hours), 0) AS unallocated_idle_share
FROM idle_capacity AS i, p
WHERE CAST(i.hour AS DATE) BETWEEN p.start_day AND p.end_day
  AND (len(p.projects) = 0 OR list_contains(p.projects, i.project_id))
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, i.accelerator_type))
GROUP BY 1, 2
ORDER BY 1, 2
