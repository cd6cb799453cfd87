-- @table: One run: the billing rows labelled with its id (e.g. its checkpoint storage), which go wholly to it, and the share of the commitment fees those rows used.
-- @grain run: run_id
-- @col run_id: The run the rows' label names.
-- @col direct_rows: Billing rows labelled with the run.
-- @col direct_nanos: Their effective cost plus their commitment fee shares, nano-USD.
-- @col direct_list_nanos: Their list cost, nano-USD.
WITH parts AS (
    SELECT direct_run_id, row_id, effective_nanos, list_nanos
    FROM billing_hourly
    WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT direct_run_id, NULL, fee_share_nanos, 0
    FROM commitment_allocation
    WHERE direct_run_id IS NOT NULL
)
SELECT
    direct_run_id AS run_id,
    count(DISTINCT row_id) AS direct_rows,
    sum(effective_nanos) AS direct_nanos,
    sum(list_nanos) AS direct_list_nanos
FROM parts
GROUP BY direct_run_id
