-- @query: One row per managed inference table and UTC day loaded: its rows and a money or token
--   sum, so a run can tell which days its inputs hold differently (late rows, revised costs).
SELECT 'managed_requests' AS table_name, CAST(started_at AS DATE) AS day, count(*) AS n,
       CAST(coalesce(sum(spend), 0) AS DECIMAL(38, 9)) AS amount
FROM managed_requests
GROUP BY ALL
UNION ALL
SELECT 'managed_usage', CAST(bucket_start AS DATE), count(*),
       CAST(sum(input_tokens + output_tokens + num_model_requests) AS DECIMAL(38, 9))
FROM managed_usage
GROUP BY ALL
UNION ALL
SELECT 'managed_costs', CAST(bucket_start AS DATE), count(*), CAST(sum(amount) AS DECIMAL(38, 9))
FROM managed_costs
GROUP BY ALL
