-- @query: Unallocated idle by ISO weekday (1 = Monday) and UTC hour of day.
SELECT
    CAST(extract(isodow FROM i.hour) AS BIGINT) AS weekday,
    CAST(extract(hour FROM i.hour) AS BIGINT) AS hour_of_day,
    sum(i.paid_accelerator_hours) AS paid_hours,
    sum(i.unallocated_idle_hours) AS unallocated_idle_hours,
    sum(i.unallocated_idle_cost) AS unallocated_idle_usd,
    sum(i.unallocated_idle_hours) / nullif(sum(i.paid_accelerator_hours), 0) AS unallocated_idle_share
FROM idle_hours_in_filters AS i
GROUP BY 1, 2
ORDER BY 1, 2
