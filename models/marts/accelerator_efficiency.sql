-- @table: One node, accelerator type, dtype and UTC day of probes: the node's measured ceiling (best verified matmul TFLOP/s), its spec peak, and how far the ceiling fell against the node's best of the previous 7 days. A node whose ceiling drops is a hardware ticket.
-- @grain day: day
-- @col day: UTC day of the probes.
-- @col node: Node the probes ran on (the host or billed resource, as the probe's --node names it).
-- @col accelerator_type: Canonical accelerator type of the probed devices (null for CPUs).
-- @col dtype: Matmul dtype (bf16, fp16, tf32, fp32).
-- @col devices_probed: Devices of the node with at least one verified result that day.
-- @col results: Probe results that day (every shape and device).
-- @col failed_results: Results that failed verification (a wrong answer or an error): never counted as a speed.
-- @col best_tflops: The node's ceiling that day: each device's best verified achieved TFLOP/s over all shapes, and of those the slowest device's (a synchronous job runs at its slowest device's pace; with one device probed, simply the best).
-- @col peak_tflops_spec: Spec peak dense TFLOP/s per device (accelerator_specs; for CPUs the probe's own estimate).
-- @col efficiency_pct: best_tflops / peak_tflops_spec x 100 (70-85% is normal for a healthy GPU).
-- @col prior_best_tflops: The node's highest ceiling on the previous 7 days with probes (same accelerator type and dtype); null when it has none.
-- @col ceiling_drop_pct: (prior_best_tflops - best_tflops) / prior_best_tflops x 100: how far the ceiling fell (negative: it rose).
-- @col ceiling_dropped: True when ceiling_drop_pct is above 10 (percent): open a hardware ticket for the node.
WITH settings AS (
    SELECT 7 AS lookback_days, 10.0 AS drop_threshold_pct
),
per_device AS (
    SELECT
        CAST(measured_at AS DATE) AS day,
        node,
        accelerator_type,
        dtype,
        device_index,
        max(achieved_tflops) FILTER (WHERE verified) AS best_tflops,
        max(peak_tflops_spec) AS probe_peak_tflops,
        count(*) AS results,
        count(*) FILTER (WHERE NOT verified) AS failed_results
    FROM probe_results
    GROUP BY ALL
),
node_days AS (
    SELECT
        day,
        node,
        accelerator_type,
        dtype,
        count(best_tflops) AS devices_probed,
        sum(results) AS results,
        sum(failed_results) AS failed_results,
        min(best_tflops) AS best_tflops,
        max(probe_peak_tflops) AS probe_peak_tflops
    FROM per_device
    GROUP BY ALL
),
prior AS (
    SELECT
        d.day,
        d.node,
        d.accelerator_type,
        d.dtype,
        max(p.best_tflops) AS prior_best_tflops
    FROM node_days AS d
    CROSS JOIN settings AS s
    JOIN node_days AS p
        ON p.node = d.node
       AND p.accelerator_type IS NOT DISTINCT FROM d.accelerator_type
       AND p.dtype = d.dtype
       AND p.day < d.day
       AND p.day >= d.day - s.lookback_days
    GROUP BY ALL
),
measured AS (
    SELECT
        d.*,
        coalesce(spec.peak_tflops_spec, d.probe_peak_tflops) AS peak_tflops_spec,
        pr.prior_best_tflops,
        (pr.prior_best_tflops - d.best_tflops) / pr.prior_best_tflops * 100 AS ceiling_drop_pct
    FROM node_days AS d
    LEFT JOIN accelerator_specs AS spec
        ON spec.accelerator_type = d.accelerator_type AND spec.dtype = d.dtype
    LEFT JOIN prior AS pr
        ON pr.node = d.node
       AND pr.accelerator_type IS NOT DISTINCT FROM d.accelerator_type
       AND pr.dtype = d.dtype
       AND pr.day = d.day
)
SELECT
    m.day,
    m.node,
    m.accelerator_type,
    m.dtype,
    m.devices_probed,
    m.results,
    m.failed_results,
    m.best_tflops,
    m.peak_tflops_spec,
    m.best_tflops / m.peak_tflops_spec * 100 AS efficiency_pct,
    m.prior_best_tflops,
    m.ceiling_drop_pct,
    coalesce(m.ceiling_drop_pct > s.drop_threshold_pct, false) AS ceiling_dropped
FROM measured AS m
CROSS JOIN settings AS s
ORDER BY m.day, m.node, m.accelerator_type, m.dtype
