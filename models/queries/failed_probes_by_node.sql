-- @query: One node with how many of its probes failed verification in the 7 days up to the
--   newest probe result, by node.
SELECT node, count(*) AS failed
FROM probe_results
WHERE NOT verified
  AND measured_at >= (SELECT max(measured_at) FROM probe_results) - INTERVAL '7' DAY
GROUP BY node
ORDER BY node
