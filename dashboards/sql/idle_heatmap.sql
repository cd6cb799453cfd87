-- @query: Unallocated idle by ISO weekday (1 = Monday) and UTC hour of day (idle_capacity, by
--   the hour: no other caller breaks the figures down by hour of day), the share of hours by
--   the rule of idle_figures.
SELECT
    CAST(extract(isodow FROM i.hour) AS BIGINT) AS weekday,
    CAST(extract(hour FROM i.hour) AS BIGINT) AS hour_of_day,
    sum(i.paid_accelerator_hours) AS paid_accelerator_hours,
    sum(i.unallocated_idle_hours) AS unallocated_idle_hours,
    sum(i.unallocated_idle_cost) AS unallocated_idle_cost,
    sum(i.unallocated_idle_hours) / nullif(sum(i.paid_accelerator_hours), 0) AS unallocated_idle_share_of_hours
FROM idle_hours_in_filters AS i
GROUP BY 1, 2
ORDER BY 1, 2
