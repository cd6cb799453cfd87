-- @query: One row when probes failed verification in the 7 days up to the newest probe result
--   (a wrong answer is a hardware ticket, never a speed): the nodes, with how many each.
-- @row: failed probes on {nodes}
WITH failed AS (
    SELECT node, count(*) AS n
    FROM probe_results
    WHERE NOT verified
      AND measured_at >= (SELECT max(measured_at) FROM probe_results) - INTERVAL '7' DAY
    GROUP BY node
)
SELECT string_agg(node || ' (' || CAST(n AS VARCHAR) || ')', ', ' ORDER BY node) AS nodes
FROM failed
HAVING count(*) > 0
