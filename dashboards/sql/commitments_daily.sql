-- @query: Commitments per UTC day (commitment_utilisation) in the filters: the days in the
--   range, the fee's project and the commitment's accelerator type (team and class filters do
--   not apply: a commitment belongs to no team).
-- @param end_day: the range's last UTC day (DATE, inclusive)
-- @param start_day: the range's first UTC day (DATE, inclusive)
SELECT
    c.day,
    c.commitment_id,
    c.utilisation_pct / 100 AS commitment_utilisation,
    c.used_accelerator_hours,
    c.committed_accelerator_hours,
    c.fee AS commitment_fee,
    c.savings AS commitment_savings,
    c.net_savings AS commitment_net_savings,
    c.unused_cost AS unused_commitment_cost,
    c.teams,
    c.hours_used,
    c.term,
    c.region,
    c.resource_kind,
    c.project_id,
    c.sku_description
FROM commitment_utilisation AS c
CROSS JOIN filter_values AS f
WHERE c.day BETWEEN CAST($start_day AS DATE) AND CAST($end_day AS DATE)  -- parameters: BigQuery prunes a partitioned mart by them
  AND (array_length(f.projects) = 0 OR list_contains(f.projects, c.project_id))
  AND (array_length(f.accelerators) = 0 OR list_contains(f.accelerators, c.resource_kind))
ORDER BY c.day, c.commitment_id
