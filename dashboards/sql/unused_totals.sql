-- @query: Unused commitment and unused reservation (unused_capacity) in the filters: the UTC
--   days in the range, the chosen providers, projects and accelerator types; idle of their own
--   kinds, shown beside unallocated idle.
SELECT
    coalesce(sum(u.unused_cost) FILTER (WHERE u.idle_kind = 'unused_commitment'), 0) AS unused_commitment_usd,
    coalesce(sum(u.unused_cost) FILTER (WHERE u.idle_kind = 'unused_reservation'), 0) AS unused_reservation_usd
FROM unused_capacity AS u
CROSS JOIN filter_values AS f
WHERE CAST(u.hour AS DATE) BETWEEN f.start_day AND f.end_day
  AND (array_length(f.providers) = 0 OR list_contains(f.providers, u.provider))
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, u.project_id))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, u.resource_kind))
