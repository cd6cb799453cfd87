-- @query: commitment_demand_hourly's hours in the last $days days (the hours after the fleet's last hour less $days days): one row per accelerator type, region and hour, with what the planner takes (demand, failed and allocated-but-idle accelerator-seconds x 1e9; allocated idle null without telemetry) and the busy share's parts.
-- @param days: the window, in days (INTEGER, at least 1).
WITH last AS (
    SELECT max(hour) AS last_hour FROM commitment_demand_hourly
)
SELECT
    d.accelerator_type,
    d.region,
    d.hour,
    d.demand_accelerator_nanos,
    d.paid_accelerator_nanos,
    d.queued_accelerator_nanos,
    d.failed_accelerator_nanos,
    CASE WHEN d.busy_accelerator_hours IS NOT NULL
        THEN greatest(CAST(round((d.telemetry_allocated_accelerator_hours - d.busy_accelerator_hours) * 3.6e12) AS HUGEINT), 0)
    END AS allocated_idle_accelerator_nanos,
    d.telemetry_allocated_accelerator_hours,
    d.busy_accelerator_hours
FROM commitment_demand_hourly AS d, last
WHERE d.hour > last.last_hour - to_days(CAST($days AS INTEGER))
ORDER BY d.accelerator_type, d.region, d.hour
