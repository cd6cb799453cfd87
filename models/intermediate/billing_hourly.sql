-- @table: One billing row's share of one UTC hour it covers, in integer nano-units of the reporting currency (USD). Rows spanning several hours are spread evenly by time; the parts of a row add up to the row exactly. Each row is classed as usage, a commitment fee (billing_line_items.is_commitment_fee: its SKU says so by the rules in collectors/sku_rules.csv; a commitment, not a resource) or unused reservation (its system label compute.googleapis.com/is_unused_reservation says so). FOCUS rows (focus_line_items: AWS, Azure, Oracle ...) join the same spread under their ProviderName: ResourceId is the resource, SubAccountId the project, the charge period the usage window (a daily row is spread evenly over its 24 hours, like any row spanning hours). A row of a commitment discount that is its Purchase or its Unused part is a commitment_fee (the provider has already amortised the commitment into its covered usage rows' EffectiveCost, so none of it is shared out again: what the Unused rows carry is unused commitment); an Unused capacity reservation is unused_reservation. FOCUS money is taken to the nano-dollar per row.
-- @grain day (onward settings_history): hour
-- @col row_id: The billing row (billing_line_items.row_id, or focus_line_items.line_item_id).
-- @col provider: gcp for the Google export's rows, else the FOCUS ProviderName as written (AWS, Microsoft, Oracle ...).
-- @col hour: UTC hour (start).
-- @col project_id: Project of the row.
-- @col resource_name: Resource of the row (null for rows without one: tax, some network).
-- @col accelerator_type: Canonical accelerator of the row's SKU (null for host, disk and other SKUs).
-- @col billing_account_id: Billing account of the row.
-- @col region: Region of the row (location.region).
-- @col row_kind: usage, commitment_fee (the fee of a committed-use contract) or unused_reservation (reserved capacity no VM consumed).
-- @col resource_kind: What the row's usage counts: its canonical accelerator type, cores, memory (billing_line_items.sku_kind), or null.
-- @col commitment_id: For a commitment fee: the commitment, named by the row's resource (what committed-use credits name in their id), else account/region/kind/SKU (the SKU carries the term, so a 1-year and a 3-year commitment stay apart); a FOCUS row's CommitmentDiscountId.
-- @col reservation_project_id: For unused reservation: the reservation's project (its system label, else the row's project).
-- @col reservation_name: For unused reservation: the reservation (its system label, else the row's resource).
-- @col direct_run_id: The known run the row's run label (or GKE's k8s-label/<run label>) names: the row goes wholly to that run (usage rows only).
-- @col unknown_run_label: The row's run label when it names no known run (the row stays in the pool).
-- @col billed_nanos: Billed cost in this hour, nano-USD.
-- @col effective_nanos: Effective cost (billed + credits) in this hour, nano-USD.
-- @col list_nanos: List cost in this hour, nano-USD.
-- @col paid_accelerator_nanos: Accelerator-seconds paid in this hour x 1e9 (accelerator SKUs only).
-- @col usage_units_nanos: The row's usage in this hour x 1e9 in its resource kind's unit: accelerator-seconds for accelerators, core-seconds for cores, usage in pricing units (GiB-hours) for memory, else 0. For a commitment fee: the committed quantity.
-- @col committed_credit_nanos: The committed-use credits (is_committed_credit, models/functions.sql) of the row in this hour, nano-USD (zero or negative): what the commitment saved against on-demand.
WITH settings AS (
    -- The run label key in force from each first day to the next (settings_history: a config
    -- change from the open month on); a day before any, or a key unset: run_id.
    SELECT
        coalesce(effective_from, DATE '0001-01-01') AS first_day,
        lead(coalesce(effective_from, DATE '0001-01-01')) OVER (ORDER BY coalesce(effective_from, DATE '0001-01-01')) AS next_day,
        value AS run_label_key
    FROM settings_history
    WHERE key = 'run_label_key'
),
labelled AS (
    SELECT
        b.*,
        -- GKE cost allocation copies pod labels onto the node's rows as k8s-label/<key>.
        coalesce(b.labels[coalesce(s.run_label_key, 'run_id')], b.labels['k8s-label/' || coalesce(s.run_label_key, 'run_id')]) AS run_label,
        CASE
            WHEN b.is_commitment_fee THEN 'commitment_fee'
            WHEN lower(coalesce(b.system_labels['compute.googleapis.com/is_unused_reservation'], '')) = 'true' THEN 'unused_reservation'
            ELSE 'usage'
        END AS row_kind,
        CASE
            WHEN b.accelerator_type IS NOT NULL THEN b.accelerator_type
            WHEN b.sku_kind IN ('cores', 'memory') THEN b.sku_kind
        END AS resource_kind,
        -- The committed-use part of the row's credits, in USD: credits_total_usd x (committed / all credits).
        CASE WHEN coalesce(b.credits_total, 0) <> 0 THEN floor_div(
            to_nanos(b.credits_total_usd) * to_nanos(coalesce(list_sum(list_transform(
                list_filter(b.credits, lambda c: is_committed_credit(c.type)), lambda c: c.amount)), 0)),
            to_nanos(b.credits_total)) ELSE 0 END AS row_committed_credit,
        -- Usage in the resource kind's unit: accelerator-seconds, core-seconds, memory in pricing units (GiB-hours).
        to_nanos(CASE
            WHEN b.accelerator_type IS NOT NULL THEN coalesce(b.accelerator_seconds, 0)
            WHEN b.sku_kind = 'cores' THEN coalesce(b.usage_amount, 0)
            WHEN b.sku_kind = 'memory' THEN coalesce(b.usage_amount_in_pricing_units, b.usage_amount, 0)
            ELSE 0
        END) AS row_units,
        to_nanos(b.cost_usd) AS row_billed,
        to_nanos(b.cost_usd + b.credits_total_usd) AS row_effective,
        to_nanos(coalesce(b.cost_at_list_usd, b.cost_usd)) AS row_list,
        CASE WHEN b.accelerator_type IS NOT NULL THEN to_nanos(coalesce(b.accelerator_seconds, 0)) ELSE 0 END AS row_paid,
        greatest(span_us(b.usage_start, b.usage_end), 1) AS total_us
    FROM billing_line_items AS b
    -- The key in force on the row's first day (a row is labelled once, whatever window reads it).
    LEFT JOIN settings AS s
        ON CAST(b.usage_start AS DATE) >= s.first_day
        AND (s.next_day IS NULL OR CAST(b.usage_start AS DATE) < s.next_day)
),
gcp AS (
    SELECT
        row_id, provider, project_id, resource_name, accelerator_type, billing_account_id, region, row_kind, resource_kind,
        CASE WHEN row_kind = 'commitment_fee'
             THEN coalesce(resource_name, concat_ws('/', billing_account_id, region, resource_kind, sku_description)) END AS commitment_id,
        CASE WHEN row_kind = 'unused_reservation'
             THEN coalesce(system_labels['compute.googleapis.com/reservation_project_id'], project_id) END AS reservation_project_id,
        CASE WHEN row_kind = 'unused_reservation'
             THEN coalesce(system_labels['compute.googleapis.com/reservation_name'], resource_name) END AS reservation_name,
        run_label, usage_start, usage_end, row_units, row_billed, row_effective, row_list, row_paid, row_committed_credit, total_us
    FROM labelled
),
focus_kinds AS (
    SELECT
        f.*,
        CASE
            WHEN f.commitment_discount_id IS NOT NULL
                 AND (f.charge_category = 'Purchase' OR f.commitment_discount_status = 'Unused') THEN 'commitment_fee'
            WHEN f.capacity_reservation_id IS NOT NULL AND f.capacity_reservation_status = 'Unused' THEN 'unused_reservation'
            ELSE 'usage'
        END AS row_kind,
        -- Accelerator-seconds a GPU instance's usage row paid: instances x hours consumed (ConsumedUnit in hours), else the charge
        -- period; a row with no ConsumedQuantity (a Correction, say) paid no time (its money still counts).
        CASE WHEN f.accelerator_count IS NOT NULL AND f.charge_category = 'Usage' THEN to_nanos(f.accelerator_count * CASE
            WHEN f.consumed_quantity IS NULL THEN 0
            WHEN regexp_matches(coalesce(f.consumed_unit, ''), '(?i)^(hrs?|hours?)$') AND f.consumed_quantity IS NOT NULL
                THEN f.consumed_quantity * 3600
            ELSE CAST(span_us(f.charge_period_start, f.charge_period_end) AS DECIMAL(38, 6)) / 1000000
        END) ELSE 0 END AS focus_paid
    FROM focus_line_items AS f
),
focus AS (
    SELECT
        line_item_id AS row_id,
        provider_name AS provider,
        coalesce(sub_account_id, billing_account_id) AS project_id,
        -- An EC2 instance's ARN is folded to its instance id: the rows naming it either way are one resource.
        CASE WHEN row_kind = 'usage' THEN focus_resource(resource_id) END AS resource_name,
        CASE WHEN row_kind = 'usage' THEN accelerator_type END AS accelerator_type,
        billing_account_id,
        region_id AS region,
        row_kind,
        CASE WHEN row_kind = 'usage' THEN accelerator_type END AS resource_kind,
        CASE WHEN row_kind = 'commitment_fee' THEN commitment_discount_id END AS commitment_id,
        CASE WHEN row_kind = 'unused_reservation' THEN coalesce(sub_account_id, billing_account_id) END AS reservation_project_id,
        CASE WHEN row_kind = 'unused_reservation' THEN capacity_reservation_id END AS reservation_name,
        CAST(NULL AS VARCHAR) AS run_label,
        charge_period_start AS usage_start,
        charge_period_end AS usage_end,
        CASE WHEN row_kind = 'usage' THEN focus_paid ELSE 0 END AS row_units,
        to_nanos(billed_cost) AS row_billed,
        to_nanos(coalesce(effective_cost, billed_cost)) AS row_effective,
        to_nanos(coalesce(list_cost, billed_cost)) AS row_list,
        CASE WHEN row_kind = 'usage' THEN focus_paid ELSE 0 END AS row_paid,
        CAST(0 AS HUGEINT) AS row_committed_credit,
        greatest(span_us(charge_period_start, charge_period_end), 1) AS total_us
    FROM focus_kinds
),
all_rows AS (
    SELECT * FROM gcp
    UNION ALL
    SELECT * FROM focus
),
row_hours AS (
    SELECT
        l.*,
        unnest(range(date_trunc('hour', l.usage_start), greatest(l.usage_end, l.usage_start + INTERVAL 1 MICROSECOND), INTERVAL 1 HOUR)) AS hour
    FROM all_rows AS l
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
    s.provider,
    s.hour,
    s.project_id,
    s.resource_name,
    s.accelerator_type,
    s.billing_account_id,
    s.region,
    s.row_kind,
    s.resource_kind,
    s.commitment_id,
    s.reservation_project_id,
    s.reservation_name,
    CASE WHEN j.run_id IS NOT NULL AND s.row_kind = 'usage' THEN j.run_id END AS direct_run_id,
    CASE WHEN s.run_label IS NOT NULL AND j.run_id IS NULL AND s.row_kind = 'usage' THEN s.run_label END AS unknown_run_label,
    floor_div(s.row_billed * s.upto_us, s.total_us) - floor_div(s.row_billed * s.before_us, s.total_us) AS billed_nanos,
    floor_div(s.row_effective * s.upto_us, s.total_us) - floor_div(s.row_effective * s.before_us, s.total_us) AS effective_nanos,
    floor_div(s.row_list * s.upto_us, s.total_us) - floor_div(s.row_list * s.before_us, s.total_us) AS list_nanos,
    floor_div(s.row_paid * s.upto_us, s.total_us) - floor_div(s.row_paid * s.before_us, s.total_us) AS paid_accelerator_nanos,
    floor_div(s.row_units * s.upto_us, s.total_us) - floor_div(s.row_units * s.before_us, s.total_us) AS usage_units_nanos,
    floor_div(s.row_committed_credit * s.upto_us, s.total_us) - floor_div(s.row_committed_credit * s.before_us, s.total_us) AS committed_credit_nanos
FROM spread AS s
LEFT JOIN jobs AS j ON j.run_id = s.run_label
