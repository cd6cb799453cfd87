-- @query: Unused reservation per reservation and project (unused_capacity) over the UTC days in
--   the range, for the chosen projects and accelerator types.
SELECT
    u.project_id,
    u.name AS reservation,
    u.resource_kind,
    sum(u.unused_accelerator_hours) AS unused_accelerator_hours,
    sum(u.unused_cost) AS unused_reservation_cost
FROM unused_capacity AS u
CROSS JOIN filter_values AS f
WHERE u.idle_kind = 'unused_reservation'
  AND CAST(u.hour AS DATE) BETWEEN f.start_day AND f.end_day
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, u.project_id))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, u.resource_kind))
GROUP BY ALL
ORDER BY unused_reservation_cost DESC, reservation
