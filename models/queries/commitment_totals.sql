-- @query: One row: the commitments (commitment_utilisation) over the UTC days in [$start_day,
--   $end_day] (null: no bound), of the chosen fee projects and committed accelerator types: how
--   many commitment-days, the commitment fees, what the committed-use credits saved against
--   on-demand prices, the savings net of the fees (USD), the committed and used
--   accelerator-hours and the commitment utilisation (used / committed, one DOUBLE division of
--   the sums; null without committed hours). The one query of these figures: the Commitments
--   page runs it (unused commitment cost is idle_figures').
-- @param start_day: the first UTC day (DATE, inclusive); null for no bound.
-- @param end_day: the last UTC day (DATE, inclusive); null for no bound.
-- @param projects: the fee projects chosen (VARCHAR[]; empty: all).
-- @param accelerators: the committed accelerator types chosen (VARCHAR[]; empty: all).
SELECT
    count(*) AS commitment_days,
    coalesce(sum(c.fee), 0) AS commitment_fee,
    coalesce(sum(c.savings), 0) AS commitment_savings,
    coalesce(sum(c.net_savings), 0) AS commitment_net_savings,
    coalesce(sum(c.committed_accelerator_hours), 0) AS committed_accelerator_hours,
    coalesce(sum(c.used_accelerator_hours), 0) AS used_accelerator_hours,
    sum(c.used_accelerator_hours) / nullif(sum(c.committed_accelerator_hours), 0) AS commitment_utilisation
FROM commitment_utilisation AS c
WHERE (CAST($start_day AS DATE) IS NULL OR c.day >= CAST($start_day AS DATE))
  AND (CAST($end_day AS DATE) IS NULL OR c.day <= CAST($end_day AS DATE))
  AND (array_length(CAST($projects AS VARCHAR[])) = 0 OR list_contains(CAST($projects AS VARCHAR[]), c.project_id))
  AND (array_length(CAST($accelerators AS VARCHAR[])) = 0 OR list_contains(CAST($accelerators AS VARCHAR[]), c.resource_kind))
