-- @table: The cost explorer's facts: one billing row, UTC day and run, with the part of the row's effective cost allocated to that run, or (run_id null) the part no run was allocated, as unallocated idle, unused commitment, unused reservation or shared cost; with the row's billing attributes and the run's. A resource-hour's run allocations and unallocated idle (idle_capacity) are spread over its rows by their cost, the fee shares of the commitments it used standing as parts of the commitment's fee row; what is left of a row is shared cost. A commitment fee row's parts are its shares (to runs, idle, shared, as the rows that used it) and its unused commitment; an unused reservation row is unused reservation. A row's parts add up to the row; a run's parts to its cost (cost_per_run); the idle parts to idle_capacity's unallocated idle; all of it to the effective cost, to the nano-dollar. USD.
-- @grain day: day
-- @col row_id: The billing row (billing_line_items.row_id, or focus_line_items.line_item_id for another cloud's FOCUS row).
-- @col day: UTC day of the hours the part covers.
-- @col run_id: The run the part was allocated to; null: no run.
-- @col cost_part: run (allocated to a run), unallocated_idle (accelerator resource cost no run held), unused_commitment (commitment fee no usage took), unused_reservation (reserved capacity no VM consumed) or shared (everything else no run was allocated).
-- @col provider: Cloud provider: gcp for the Google export's rows, else the FOCUS ProviderName as written (AWS, Microsoft, Oracle ...).
-- @col billing_account_id: Billing account.
-- @col project_id: Project of the billing row.
-- @col service_name: Service of the billing row.
-- @col sku_description: SKU of the billing row (a FOCUS row's ChargeDescription).
-- @col accelerator_type: The billing row's canonical accelerator type (null for host, disk and other SKUs).
-- @col pricing_model: on_demand, spot, commitment, reserved or dws: the billing row's (billing_line_items.pricing_model, from its SKU); a FOCUS row's PricingCategory (Committed: commitment, Dynamic: spot, else on_demand).
-- @col labels: The billing row's labels (a FOCUS row's Tags).
-- @col credit_types: The credit types on the billing row (COMMITTED_USAGE_DISCOUNT, SUSTAINED_USAGE_DISCOUNT, PROMOTION, ...), sorted; empty without credits; [Credit] for a FOCUS row of ChargeCategory Credit.
-- @col label_team: The billing row's team label (else GKE's k8s-label/team or k8s-namespace; a FOCUS row's team tag, as spend_daily reads it); __unallocated__ when it has none.
-- @col run_team: The run-owner team (jobs.team; __unallocated__ for a run without one); null when no run.
-- @col workload_class: The run's workload class; null when no run.
-- @col effective_cost: The part's effective cost (USD).
WITH fee_rows AS (
    -- Each commitment-hour's fee shares stand on one of its fee rows (the largest, then by
    -- row_id); its other fee rows (corrections) keep their cost as unused commitment.
    SELECT commitment_id, hour, row_id AS fee_row_id
    FROM (
        SELECT commitment_id, hour, row_id,
               row_number() OVER (PARTITION BY commitment_id, hour ORDER BY effective_nanos DESC, row_id) AS n
        FROM billing_hourly
        WHERE row_kind = 'commitment_fee'
    )
    WHERE n = 1
),
fee_shares AS (
    SELECT f.fee_row_id AS row_id, c.hour, c.project_id, c.resource_name, c.direct_run_id, c.fee_share_nanos
    FROM commitment_allocation AS c
    JOIN fee_rows AS f USING (commitment_id, hour)
),
pool_rows AS (
    -- A resource-hour's own usage rows and the fee shares it took (on the fee rows): together
    -- they are resource_hour_pool.effective_nanos, what its runs and idle were given.
    SELECT row_id, hour, project_id, resource_name, effective_nanos
    FROM billing_hourly
    WHERE resource_name IS NOT NULL AND direct_run_id IS NULL AND row_kind = 'usage'
    UNION ALL
    SELECT row_id, hour, project_id, resource_name, fee_share_nanos
    FROM fee_shares
    WHERE resource_name IS NOT NULL AND direct_run_id IS NULL
),
pooled AS (
    SELECT
        row_id,
        hour,
        project_id,
        resource_name,
        effective_nanos,
        sum(effective_nanos) OVER upto AS upto_nanos,
        row_number() OVER upto AS k,
        sum(effective_nanos) OVER pool AS pool_nanos
    FROM pool_rows
    WINDOW upto AS (PARTITION BY project_id, resource_name, hour ORDER BY row_id ROWS UNBOUNDED PRECEDING),
           pool AS (PARTITION BY project_id, resource_name, hour)
),
claims AS (
    -- What a resource-hour's cost went to: each run's allocation, the hour's unallocated idle
    -- as idle_capacity states it, and the rest (zero when the pool is resource_hour_pool's) as
    -- shared cost. The claims add up to the hour's rows (fee shares included) exactly.
    SELECT project_id, resource_name, hour, run_id, 'run' AS cost_part, 0 AS ord, allocated_nanos AS nanos
    FROM run_allocation
    UNION ALL
    SELECT project_id, resource_name, hour, NULL, 'unallocated_idle', 1, to_nanos(unallocated_idle_cost)
    FROM idle_capacity
),
pools AS (
    SELECT project_id, resource_name, hour, any_value(pool_nanos) AS pool_nanos
    FROM pooled
    GROUP BY ALL
),
all_claims AS (
    SELECT c.* FROM claims AS c JOIN pools USING (project_id, resource_name, hour)
    UNION ALL
    SELECT p.project_id, p.resource_name, p.hour, NULL, 'shared', 2, p.pool_nanos - coalesce(c.nanos, 0)
    FROM pools AS p
    LEFT JOIN (SELECT project_id, resource_name, hour, sum(nanos) AS nanos FROM claims GROUP BY ALL) AS c
        USING (project_id, resource_name, hour)
),
cumulative_claims AS (
    SELECT
        *,
        sum(nanos) OVER (PARTITION BY project_id, resource_name, hour ORDER BY ord, run_id ROWS UNBOUNDED PRECEDING) AS v_upto
    FROM all_claims
),
pool_parts AS (
    -- Rows x claims of one resource-hour in integer nano-USD, both ways exact: with U the
    -- rows' running cost, V the claims' running total and T the hour's cost (U and V both end
    -- at T), a part is F(U, V) - F(U-, V) - F(U, V-) + F(U-, V-) with F(u, v) = floor(u v / T),
    -- so each row's parts add up to the row and each claim's parts to the claim. When the
    -- hour's rows cancel out (T = 0), the claims sit on its first row and each row keeps its
    -- own cost as shared.
    SELECT
        p.row_id,
        p.hour,
        c.run_id,
        c.cost_part,
        CASE WHEN p.pool_nanos <> 0
             THEN floor_div(p.upto_nanos * c.v_upto, p.pool_nanos)
                  - floor_div((p.upto_nanos - p.effective_nanos) * c.v_upto, p.pool_nanos)
                  - floor_div(p.upto_nanos * (c.v_upto - c.nanos), p.pool_nanos)
                  + floor_div((p.upto_nanos - p.effective_nanos) * (c.v_upto - c.nanos), p.pool_nanos)
             WHEN c.cost_part = 'shared'
             THEN p.effective_nanos + CASE WHEN p.k = 1 THEN c.nanos ELSE 0 END
             ELSE CASE WHEN p.k = 1 THEN c.nanos ELSE 0 END
        END AS nanos
    FROM pooled AS p
    JOIN cumulative_claims AS c USING (project_id, resource_name, hour)
),
parts AS (
    SELECT row_id, hour, run_id, cost_part, nanos FROM pool_parts
    UNION ALL
    SELECT row_id, hour, direct_run_id, 'run', effective_nanos
    FROM billing_hourly
    WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT row_id, hour, NULL, 'shared', effective_nanos
    FROM billing_hourly
    WHERE resource_name IS NULL AND direct_run_id IS NULL AND row_kind = 'usage'
    UNION ALL
    -- Fee shares of rows labelled with a run go to it; of rows without a resource, shared.
    SELECT row_id, hour, direct_run_id, 'run', fee_share_nanos
    FROM fee_shares
    WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT row_id, hour, NULL, 'shared', fee_share_nanos
    FROM fee_shares
    WHERE resource_name IS NULL AND direct_run_id IS NULL
    UNION ALL
    -- What of a fee row no share took is unused commitment (commitment_hourly.unused_nanos).
    SELECT b.row_id, b.hour, NULL, 'unused_commitment', b.effective_nanos - coalesce(f.nanos, 0)
    FROM billing_hourly AS b
    LEFT JOIN (SELECT row_id, hour, sum(fee_share_nanos) AS nanos FROM fee_shares GROUP BY ALL) AS f
        USING (row_id, hour)
    WHERE b.row_kind = 'commitment_fee'
    UNION ALL
    SELECT row_id, hour, NULL, 'unused_reservation', effective_nanos
    FROM billing_hourly
    WHERE row_kind = 'unused_reservation'
),
daily AS (
    SELECT row_id, CAST(hour AS DATE) AS day, run_id, cost_part, sum(nanos) AS nanos
    FROM parts
    GROUP BY ALL
),
row_attributes AS (
    -- What the explorer groups by, for a row of Google's export and for a FOCUS row (billing_hourly
    -- holds both; a FOCUS row's project is its SubAccountId, as billing_hourly's).
    SELECT
        row_id, provider, billing_account_id, project_id, service_name, sku_description, accelerator_type,
        pricing_model,
        labels,
        list_sort(list_distinct(list_transform(coalesce(credits, []), lambda c: c.type))) AS credit_types,
        coalesce(row_team(labels), '__unallocated__') AS label_team
    FROM billing_line_items
    UNION ALL
    SELECT
        line_item_id, provider_name, billing_account_id, coalesce(sub_account_id, billing_account_id),
        service_name, charge_description, accelerator_type,
        CASE pricing_category WHEN 'Committed' THEN 'commitment' WHEN 'Dynamic' THEN 'spot' ELSE 'on_demand' END,
        try_cast(json(tags) AS MAP(VARCHAR, VARCHAR)),
        CASE WHEN charge_category = 'Credit' THEN ['Credit'] ELSE [] END,
        coalesce(nullif(trim(json_extract_string(tags, '$.team')), ''), '__unallocated__')
    FROM focus_line_items
)
SELECT
    d.row_id,
    d.day,
    d.run_id,
    d.cost_part,
    b.provider,
    b.billing_account_id,
    b.project_id,
    b.service_name,
    b.sku_description,
    b.accelerator_type,
    b.pricing_model,
    b.labels,
    b.credit_types,
    b.label_team,
    CASE WHEN d.run_id IS NOT NULL THEN coalesce(j.team, '__unallocated__') END AS run_team,
    j.workload_class,
    from_nanos(d.nanos) AS effective_cost
FROM daily AS d
JOIN row_attributes AS b USING (row_id)
LEFT JOIN jobs AS j ON j.run_id = d.run_id
WHERE d.nanos <> 0
ORDER BY d.day, d.row_id, d.run_id NULLS FIRST
