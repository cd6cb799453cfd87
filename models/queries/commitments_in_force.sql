-- @query: What is committed today, per accelerator type and region: the committed accelerator-seconds x 1e9 of every accelerator commitment in the last hour commitment_hourly has (/ 3.6e12: accelerators; cores and memory commitments left out).
WITH last AS (
    SELECT max(hour) AS last_hour FROM commitment_hourly
)
SELECT
    c.resource_kind AS accelerator_type,
    c.region,
    sum(c.committed_nanos) AS committed_nanos
FROM commitment_hourly AS c, last
WHERE c.hour = last.last_hour AND c.resource_kind NOT IN ('cores', 'memory')
GROUP BY ALL
ORDER BY accelerator_type, region
