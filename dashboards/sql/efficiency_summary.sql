-- @query: Probe-measured ceilings against spec per accelerator type and dtype
--   (accelerator_efficiency), over the date range (accelerator filter applies).
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
FROM efficiency_in_filters AS e
GROUP BY 1, 2
ORDER BY 1, 2
