-- @query: The values each filter offers.
WITH found AS (
    SELECT DISTINCT 'provider' AS dimension, provider AS value FROM spend_daily
    UNION SELECT DISTINCT 'provider', provider FROM idle_capacity_daily
    UNION SELECT DISTINCT 'provider', provider FROM cost_per_run
    UNION SELECT DISTINCT 'team', team FROM cost_per_run
    UNION SELECT DISTINCT 'team', team FROM spend_daily
    UNION SELECT DISTINCT 'project', project_id FROM cost_per_run
    UNION SELECT DISTINCT 'project', project_id FROM spend_daily
    UNION SELECT DISTINCT 'project', project_id FROM idle_capacity_daily
    UNION SELECT DISTINCT 'workload', workload_class FROM cost_per_run
    UNION SELECT DISTINCT 'accelerator', accelerator_type FROM cost_per_run
    UNION SELECT DISTINCT 'accelerator', accelerator_type FROM idle_capacity_daily
)
SELECT dimension, value
FROM found
WHERE value IS NOT NULL
ORDER BY dimension, value
