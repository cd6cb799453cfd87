-- @table: One run, resource and UTC hour: the accelerator-seconds the run held there (from its placements). A run still running holds up to the end of the resource's last billed hour. A placement without a project matches its resource name only when exactly one project bills that name (otherwise it is reported in allocation_issues, not guessed). A FOCUS resource (another cloud's) is matched by its ResourceId, the instance id that ends an ARN ResourceId, or its ResourceName; the project is its SubAccountId.
-- @grain day: hour
-- @check held_within_placements (error, blocking): No run holds more than its placements say.
-- @col run_id: The run.
-- @col project_id: Project of the billed resource the placement matched.
-- @col resource_name: The resource.
-- @col hour: UTC hour (start).
-- @col held_accelerator_nanos: Accelerators x seconds held in the hour, x 1e9 (a MIG slice counts its share of the accelerator: floor of accelerators x numerator x nanos / denominator per placement and hour).
-- @col claim_accelerator_nanos: What the run claims of the resource-hour's pool: held, less the accelerator-seconds x 1e9 its own direct rows paid there (GKE cost allocation's per-pod split of the node's rows), at least 0. Equal to held unless such rows exist.
WITH billed AS (
    SELECT project_id, resource_name, usage_end, resource_name AS match_name
    FROM billing_line_items
    WHERE resource_name IS NOT NULL
    UNION ALL
    -- FOCUS rows (billing_hourly's project and resource: an EC2 instance's ARN and its bare
    -- instance id are one resource): a placement names the ResourceId, the last part of an ARN
    -- ResourceId (an EC2 instance id), or the ResourceName (a node name) of an accelerator row
    -- only (a volume whose ResourceName copies its instance's Name tag is not the instance).
    SELECT coalesce(sub_account_id, billing_account_id), focus_resource(resource_id), charge_period_end, unnest([
        resource_id,
        CASE WHEN resource_id LIKE 'arn:%' THEN nullif(regexp_extract(resource_id, '[/:]([^/:]+)$', 1), '') END,
        CASE WHEN accelerator_type IS NOT NULL THEN resource_name END])
    FROM focus_line_items
    WHERE resource_id IS NOT NULL
),
billed_resources AS (
    SELECT
        project_id,
        resource_name,
        match_name,
        max(usage_end) AS last_billed_end,
        count(*) OVER (PARTITION BY match_name) AS projects_with_name,
        -- Two resources of one project a placement's name could mean (two GPU instances sharing
        -- a Name tag): which one is unknown, so neither is held (allocation_issues reports it).
        count(*) OVER (PARTITION BY match_name, project_id) AS resources_with_name
    FROM billed
    WHERE match_name IS NOT NULL
    GROUP BY project_id, resource_name, match_name
),
holds AS (
    SELECT
        p.run_id,
        r.project_id,
        r.resource_name,
        p.accelerators,
        coalesce(p.share_numerator, 1) AS share_numerator,
        coalesce(p.share_denominator, 1) AS share_denominator,
        p.start_at,
        coalesce(p.end_at, date_trunc('hour', r.last_billed_end - INTERVAL 1 MICROSECOND) + INTERVAL 1 HOUR) AS end_at
    FROM job_placements AS p
    JOIN billed_resources AS r
        ON r.match_name = p.resource_name
       AND (p.project_id = r.project_id OR (p.project_id IS NULL AND r.projects_with_name = 1))
       AND r.resources_with_name = 1
    WHERE p.start_at IS NOT NULL AND p.accelerators > 0 AND coalesce(p.share_numerator, 1) > 0 AND coalesce(p.share_denominator, 1) > 0
),
hours AS (
    SELECT
        *,
        unnest(range(date_trunc('hour', start_at), end_at, INTERVAL 1 HOUR)) AS hour
    FROM holds
    WHERE end_at > start_at
),
held AS (
    SELECT
        run_id,
        project_id,
        resource_name,
        hour,
        sum(CAST(accelerators AS HUGEINT) * share_numerator * span_us(greatest(start_at, hour), least(end_at, hour + INTERVAL 1 HOUR)) * 1000 // share_denominator) AS held_accelerator_nanos
    FROM hours
    GROUP BY run_id, project_id, resource_name, hour
),
-- Accelerator time a run already paid for directly on the resource-hour (rows naming it): its
-- placement must not claim that time again from the pool, or the pool's idle would go to it.
direct_paid AS (
    SELECT direct_run_id AS run_id, project_id, resource_name, hour, sum(paid_accelerator_nanos) AS nanos
    FROM billing_hourly
    WHERE direct_run_id IS NOT NULL AND resource_name IS NOT NULL AND paid_accelerator_nanos <> 0
    GROUP BY direct_run_id, project_id, resource_name, hour
)
SELECT
    h.run_id,
    h.project_id,
    h.resource_name,
    h.hour,
    h.held_accelerator_nanos,
    greatest(h.held_accelerator_nanos - coalesce(d.nanos, 0), 0) AS claim_accelerator_nanos
FROM held AS h
LEFT JOIN direct_paid AS d USING (run_id, project_id, resource_name, hour)
