-- Probe-measured ceilings against spec per accelerator type and dtype (accelerator_efficiency),
-- over the date range (accelerator filter applies). Params: filters.
WITH p AS (
    SELECT
        CAST(? AS DATE) AS start_day,
        CAST(? AS DATE) AS end_day,
        CAST(? AS VARCHAR[]) AS teams,
        CAST(? AS VARCHAR[]) AS projects,
        CAST(? AS VARCHAR[]) AS classes,
        CAST(? AS VARCHAR[]) AS accelerators
)
SELECT
    coalesce(e.accelerator_type, '(cpu)') AS accelerator,
    e.dtype,
    count(DISTINCT e.node) AS nodes,
    sum(e.results) AS results,
    sum(e.failed_results) AS failed_results,
    max(e.best_tflops) AS best_achieved_tflops,
    median(e.best_tflops) AS median_node_tflops,
    max(e.peak_tflops_spec) AS spec_tflops,
    median(e.efficiency_pct) AS median_efficiency_pct,
    count(DISTINCT e.node) FILTER (WHERE e.ceiling_dropped) AS nodes_with_ceiling_drop
FROM accelerator_efficiency AS e, p
WHERE e.day BETWEEN p.start_day AND p.end_day
  AND (len(p.accelerators) = 0 OR list_contains(p.accelerators, e.accelerator_type))
GROUP BY 1, 2
ORDER BY 1, 2
