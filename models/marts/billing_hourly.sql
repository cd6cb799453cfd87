-- @table: One billing row's share of one UTC hour it covers, in integer nano-units of the reporting currency (USD). Rows spanning several hours are spread evenly by time; the parts of a row add up to the row exactly.
-- @depends: billing_line_items, jobs, flopledger_settings
-- @col row_id: The billing row (billing_line_items.row_id).
-- @col hour: UTC hour (start).
-- @col project_id: Project of the row.
-- @col resource_name: Resource of the row (null for rows without one: tax, some network).
-- @col accelerator_type: Canonical accelerator of the row's SKU (null for host, disk and other SKUs).
-- @col direct_run_id: The known run the row's run label (or GKE's k8s-label/<run label>) names: the row goes wholly to that run.
-- @col unknown_run_label: The row's run label when it names no known run (the row stays in the pool).
-- @col billed_nanos: Billed cost in this hour, nano-USD.
-- @col effective_nanos: Effective cost (billed + credits) in this hour, nano-USD.
-- @col list_nanos: List cost in this hour, nano-USD.
-- @col paid_accelerator_nanos: Accelerator-seconds paid in this hour x 1e9 (accelerator SKUs only).
WITH settings AS (
    SELECT coalesce(max(CASE WHEN key = 'run_label_key' THEN value END), 'run_id') AS run_label_key
    FROM flopledger_settings
),
labelled AS (
    SELECT
        b.*,
        -- GKE cost allocation copies pod labels onto the node's rows as k8s-label/<key>.
        coalesce(b.labels[s.run_label_key], b.labels['k8s-label/' || s.run_label_key]) AS run_label,
        to_nanos(b.cost_usd) AS row_billed,
        to_nanos(b.cost_usd + b.credits_total_usd) AS row_effective,
        to_nanos(coalesce(b.cost_at_list_usd, b.cost_usd)) AS row_list,
        CASE WHEN b.accelerator_type IS NOT NULL THEN to_nanos(coalesce(b.accelerator_seconds, 0)) ELSE 0 END AS row_paid,
        greatest(span_us(b.usage_start, b.usage_end), 1) AS total_us
    FROM billing_line_items AS b, settings AS s
),
row_hours AS (
    SELECT
        l.*,
        unnest(range(date_trunc('hour', l.usage_start), greatest(l.usage_end, l.usage_start + INTERVAL 1 MICROSECOND), INTERVAL 1 HOUR)) AS hour
    FROM labelled AS l
),
hour_overlaps AS (
    SELECT
        *,
        CASE WHEN usage_end = usage_start THEN 1
             ELSE span_us(greatest(usage_start, hour), least(usage_end, hour + INTERVAL 1 HOUR)) END AS overlap_us
    FROM row_hours
),
cumulative AS (
    SELECT
        *,
        sum(overlap_us) OVER (PARTITION BY row_id ORDER BY hour) AS upto_us
    FROM hour_overlaps
),
spread AS (
    SELECT
        *,
        upto_us - overlap_us AS before_us
    FROM cumulative
)
SELECT
    s.row_id,
    s.hour,
    s.project_id,
    s.resource_name,
    s.accelerator_type,
    CASE WHEN j.run_id IS NOT NULL THEN j.run_id END AS direct_run_id,
    CASE WHEN s.run_label IS NOT NULL AND j.run_id IS NULL THEN s.run_label END AS unknown_run_label,
    floor_div(s.row_billed * s.upto_us, s.total_us) - floor_div(s.row_billed * s.before_us, s.total_us) AS billed_nanos,
    floor_div(s.row_effective * s.upto_us, s.total_us) - floor_div(s.row_effective * s.before_us, s.total_us) AS effective_nanos,
    floor_div(s.row_list * s.upto_us, s.total_us) - floor_div(s.row_list * s.before_us, s.total_us) AS list_nanos,
    floor_div(s.row_paid * s.upto_us, s.total_us) - floor_div(s.row_paid * s.before_us, s.total_us) AS paid_accelerator_nanos
FROM spread AS s
LEFT JOIN jobs AS j ON j.run_id = s.run_label
