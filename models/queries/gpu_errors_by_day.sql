-- @query: One GPU on one UTC day with XID or ECC errors, within a lookback from the newest
--   gpu_samples minute; a GPU without a UUID is named 'gpu' and its index.
-- @param lookback_days: how many days before the newest minute to look at (INTEGER).
SELECT CAST(minute AS DATE) AS day, node,
       coalesce(gpu_uuid, 'gpu' || CAST(gpu_index AS VARCHAR)) AS gpu,
       coalesce(sum(xid_errors), 0) AS xid, coalesce(sum(ecc_errors), 0) AS ecc
FROM gpu_samples
WHERE minute >= (SELECT max(minute) FROM gpu_samples)
                 - INTERVAL (CAST($lookback_days AS INTEGER)) DAY
GROUP BY day, node, gpu
HAVING coalesce(sum(xid_errors), 0) > 0 OR coalesce(sum(ecc_errors), 0) > 0
ORDER BY day, node, gpu
