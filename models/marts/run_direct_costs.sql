-- @table: One run: the billing rows labelled with its id (e.g. its checkpoint storage), which go wholly to it.
-- @depends: billing_hourly
-- @col run_id: The run the rows' label names.
-- @col direct_rows: Billing rows labelled with the run.
-- @col direct_nanos: Their effective cost, nano-USD.
-- @col direct_list_nanos: Their list cost, nano-USD.
SELECT
    direct_run_id AS run_id,
    count(DISTINCT row_id) AS direct_rows,
    sum(effective_nanos) AS direct_nanos,
    sum(list_nanos) AS direct_list_nanos
FROM billing_hourly
WHERE direct_run_id IS NOT NULL
GROUP BY direct_run_id
