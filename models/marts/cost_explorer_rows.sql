-- @table: The cost explorer's facts: one billing row, UTC day and run, with the part of the row's effective cost allocated to that run, or (run_id null) the part no run was allocated, as unallocated idle or shared cost; with the row's billing attributes and the run's. A row's parts add up to the row; a run's parts add up to what run_allocation and its labelled rows give it; all of it adds up to the effective cost, to the nano-dollar. USD.
-- @depends: billing_hourly, billing_line_items, run_allocation, idle_capacity, jobs
-- @col row_id: The billing row (billing_line_items.row_id).
-- @col day: UTC day of the hours the part covers.
-- @col run_id: The run the part was allocated to; null: no run.
-- @col cost_part: run (allocated to a run), unallocated_idle (accelerator resource cost no run held) or shared (everything else no run was allocated).
-- @col provider: Cloud provider.
-- @col billing_account_id: Billing account.
-- @col project_id: Project of the billing row.
-- @col service_name: Service of the billing row.
-- @col sku_description: SKU of the billing row.
-- @col accelerator_type: The billing row's canonical accelerator type (null for host, disk and other SKUs).
-- @col pricing_model: on_demand, spot (Spot / Preemptible SKUs) or commitment (Commitment SKUs), from the SKU.
-- @col labels: The billing row's labels.
-- @col label_team: The billing row's team label (else GKE's k8s-label/team or k8s-namespace); __unallocated__ when it has none.
-- @col run_team: The run-owner team (jobs.team; __unallocated__ for a run without one); null when no run.
-- @col workload_class: The run's workload class; null when no run.
-- @col effective_cost: The part's effective cost (USD).
WITH pooled AS (
    SELECT
        row_id,
        hour,
        project_id,
        resource_name,
        effective_nanos,
        sum(effective_nanos) OVER upto AS upto_nanos,
        row_number() OVER upto AS k,
        sum(effective_nanos) OVER pool AS pool_nanos,
        count(*) OVER pool AS pool_rows
    FROM billing_hourly
    WHERE resource_name IS NOT NULL AND direct_run_id IS NULL
    WINDOW upto AS (PARTITION BY project_id, resource_name, hour ORDER BY row_id ROWS UNBOUNDED PRECEDING),
           pool AS (PARTITION BY project_id, resource_name, hour)
),
run_parts AS (
    -- Each run's allocation of a resource-hour, spread over the hour's rows by their cost
    -- (by count when the rows cancel out); cumulative floors, so a run's parts add up to its
    -- allocation exactly.
    SELECT
        p.row_id,
        p.hour,
        a.run_id,
        CASE WHEN p.pool_nanos <> 0
             THEN floor_div(a.allocated_nanos * p.upto_nanos, p.pool_nanos)
                  - floor_div(a.allocated_nanos * (p.upto_nanos - p.effective_nanos), p.pool_nanos)
             ELSE floor_div(a.allocated_nanos * p.k, p.pool_rows)
                  - floor_div(a.allocated_nanos * (p.k - 1), p.pool_rows)
        END AS nanos
    FROM pooled AS p
    JOIN run_allocation AS a USING (project_id, resource_name, hour)
),
run_parts_by_piece AS (
    SELECT row_id, hour, sum(nanos) AS nanos FROM run_parts GROUP BY row_id, hour
),
idle_hours AS (
    SELECT DISTINCT project_id, resource_name, hour FROM idle_capacity
),
parts AS (
    SELECT row_id, hour, run_id, 'run' AS cost_part, nanos FROM run_parts
    UNION ALL
    SELECT
        p.row_id,
        p.hour,
        NULL,
        CASE WHEN i.hour IS NOT NULL THEN 'unallocated_idle' ELSE 'shared' END,
        p.effective_nanos - coalesce(r.nanos, 0)
    FROM pooled AS p
    LEFT JOIN run_parts_by_piece AS r USING (row_id, hour)
    LEFT JOIN idle_hours AS i USING (project_id, resource_name, hour)
    UNION ALL
    SELECT row_id, hour, direct_run_id, 'run', effective_nanos
    FROM billing_hourly
    WHERE direct_run_id IS NOT NULL
    UNION ALL
    SELECT row_id, hour, NULL, 'shared', effective_nanos
    FROM billing_hourly
    WHERE resource_name IS NULL AND direct_run_id IS NULL
),
daily AS (
    SELECT row_id, CAST(hour AS DATE) AS day, run_id, cost_part, sum(nanos) AS nanos
    FROM parts
    GROUP BY ALL
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
    CASE
        WHEN b.sku_description ILIKE 'Commitment%' THEN 'commitment'
        WHEN b.sku_description ILIKE '%Spot%' OR b.sku_description ILIKE '%Preemptible%' THEN 'spot'
        ELSE 'on_demand'
    END AS pricing_model,
    b.labels,
    coalesce(row_team(b.labels), '__unallocated__') AS label_team,
    CASE WHEN d.run_id IS NOT NULL THEN coalesce(j.team, '__unallocated__') END AS run_team,
    j.workload_class,
    from_nanos(d.nanos) AS effective_cost
FROM daily AS d
JOIN billing_line_items AS b USING (row_id)
LEFT JOIN jobs AS j ON j.run_id = d.run_id
WHERE d.nanos <> 0 OR d.run_id IS NULL
ORDER BY d.day, d.row_id, d.run_id NULLS FIRST
