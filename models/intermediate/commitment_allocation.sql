-- @table: One commitment, UTC hour and resource-hour that used it: the resource-hour's share of the commitment's fee. A usage row used a commitment when it got a committed-use credit whose id names the commitment, or (credits naming no commitment) when it is usage of the same billing account, region and resource kind. share = floor(fee x used / max(committed, all used)) in nano-USD; what is left of the fee is unused commitment (commitment_hourly).
-- @grain day: hour
-- @col commitment_id: The commitment (billing_hourly.commitment_id of its fee rows).
-- @col hour: UTC hour (start).
-- @col project_id: Project of the resource that used it.
-- @col resource_name: The resource that used it (null: usage rows without a resource, which are shared cost).
-- @col direct_run_id: The run its usage rows are labelled with (the share goes directly to it), else null.
-- @col resource_kind: Accelerator type, cores or memory: what the commitment commits.
-- @col committed_usage_nanos: Usage (accelerator-seconds, or usage.amount) x 1e9 of the resource-hour's rows that got the commitment's credit.
-- @col credit_nanos: The committed-use credits of those rows, nano-USD (zero or negative): the saving against on-demand.
-- @col fee_share_nanos: Its share of the commitment's effective fee in the hour, nano-USD (rounded toward minus infinity).
-- @col fee_billed_share_nanos: The same share of the fee's billed cost, nano-USD.
WITH fees AS (
    SELECT
        commitment_id,
        hour,
        max(billing_account_id) AS billing_account_id,
        max(region) AS region,
        max(resource_kind) AS resource_kind,
        sum(effective_nanos) AS fee_nanos,
        sum(billed_nanos) AS fee_billed_nanos,
        sum(usage_units_nanos) AS committed_nanos
    FROM billing_hourly
    WHERE row_kind = 'commitment_fee'
    GROUP BY commitment_id, hour
),
commitments AS (
    SELECT DISTINCT commitment_id FROM fees
),
credits AS (
    SELECT row_id, credit.id AS credit_id, credit.type AS credit_type, credit.amount AS amount
    FROM (SELECT row_id, unnest(credits) AS credit FROM billing_line_items)
),
named_credits AS (
    -- Each usage row's committed-use credits, by the commitment they name (if any): how much
    -- of the row's credit each named commitment gave.
    SELECT c.row_id, m.commitment_id, sum(to_nanos(-c.amount)) AS credit_weight
    FROM credits AS c
    LEFT JOIN commitments AS m ON m.commitment_id = c.credit_id
    WHERE is_committed_credit(c.credit_type)
    GROUP BY ALL
),
committed_rows AS (
    -- Each usage row with a committed-use credit; names_one: some credit names a commitment.
    SELECT row_id, bool_or(commitment_id IS NOT NULL) AS names_one
    FROM named_credits
    GROUP BY row_id
),
usage AS (
    SELECT h.*, r.names_one
    FROM billing_hourly AS h
    JOIN committed_rows AS r USING (row_id)
    WHERE h.row_kind = 'usage'
),
candidates AS (
    -- Every commitment a row-hour may have used, with the weight its usage and credit are split
    -- by: a named commitment by the credit naming it; otherwise (no credit names one) every
    -- commitment of the same account, region and resource kind by its committed quantity that
    -- hour. A row is never counted whole by more than one commitment.
    -- (A named commitment without a fee in the hour keeps its part: that part matches nothing.)
    SELECT n.commitment_id, u.hour, u.row_id, u.project_id, u.resource_name, u.direct_run_id,
           u.usage_units_nanos, u.committed_credit_nanos, greatest(n.credit_weight, 0) AS weight,
           f.commitment_id IS NOT NULL AS has_fee
    FROM usage AS u
    JOIN named_credits AS n ON n.row_id = u.row_id AND n.commitment_id IS NOT NULL
    LEFT JOIN fees AS f ON f.hour = u.hour AND f.commitment_id = n.commitment_id
    WHERE u.names_one
    UNION ALL
    SELECT f.commitment_id, u.hour, u.row_id, u.project_id, u.resource_name, u.direct_run_id,
           u.usage_units_nanos, u.committed_credit_nanos, greatest(f.committed_nanos, 0) AS weight,
           TRUE AS has_fee
    FROM usage AS u
    JOIN fees AS f
        ON f.hour = u.hour
       AND f.billing_account_id IS NOT DISTINCT FROM u.billing_account_id
       AND f.region IS NOT DISTINCT FROM u.region
       AND f.resource_kind = u.resource_kind
    WHERE NOT u.names_one
),
weighted AS (
    -- Zero weights all round (a fee hour committing nothing): split evenly.
    SELECT
        *,
        CASE WHEN sum(weight) OVER row_hour > 0 THEN weight ELSE 1 END AS w
    FROM candidates
    WINDOW row_hour AS (PARTITION BY row_id, hour)
),
cumulative AS (
    SELECT
        *,
        sum(w) OVER (PARTITION BY row_id, hour ORDER BY commitment_id ROWS UNBOUNDED PRECEDING) AS w_upto,
        sum(w) OVER (PARTITION BY row_id, hour) AS w_total
    FROM weighted
),
matched AS (
    -- The row-hour's usage and credit split over its commitments in commitment_id order with
    -- cumulative floors: the parts add up to the row exactly.
    SELECT
        commitment_id, hour, row_id, project_id, resource_name, direct_run_id,
        floor_div(usage_units_nanos * w_upto, w_total) - floor_div(usage_units_nanos * (w_upto - w), w_total) AS usage_units_nanos,
        floor_div(committed_credit_nanos * w_upto, w_total) - floor_div(committed_credit_nanos * (w_upto - w), w_total) AS committed_credit_nanos
    FROM cumulative
    WHERE has_fee
),
users AS (
    SELECT commitment_id, hour, project_id, resource_name, direct_run_id, sum(usage_units_nanos) AS committed_usage_nanos, sum(committed_credit_nanos) AS credit_nanos
    FROM matched
    GROUP BY ALL
),
totals AS (
    SELECT commitment_id, hour, sum(committed_usage_nanos) AS used_nanos
    FROM users
    GROUP BY ALL
)
SELECT
    u.commitment_id,
    u.hour,
    u.project_id,
    u.resource_name,
    u.direct_run_id,
    f.resource_kind,
    u.committed_usage_nanos,
    u.credit_nanos,
    CASE WHEN greatest(f.committed_nanos, t.used_nanos) > 0
         THEN floor_div(f.fee_nanos * u.committed_usage_nanos, greatest(f.committed_nanos, t.used_nanos)) ELSE 0 END AS fee_share_nanos,
    CASE WHEN greatest(f.committed_nanos, t.used_nanos) > 0
         THEN floor_div(f.fee_billed_nanos * u.committed_usage_nanos, greatest(f.committed_nanos, t.used_nanos)) ELSE 0 END AS fee_billed_share_nanos
FROM users AS u
JOIN totals AS t USING (commitment_id, hour)
JOIN fees AS f USING (commitment_id, hour)
