-- @table: One run: its model FLOPs and model FLOPs utilisation (MFU) against the spec peak of its accelerators and against the slowest probe-measured ceiling of the nodes it held. Both in bf16, dense.
-- @grain run (onward accelerator_efficiency): run_id
-- @col run_id: The run.
-- @col workload_class: pretraining, post_training, rl_eval, online_inference, batch_inference or other.
-- @col accelerator_type: Canonical accelerator type of the run (jobs), whose spec peak MFU against spec uses.
-- @col model_params: Model parameters (count).
-- @col tokens_in: Tokens read.
-- @col tokens_out: Tokens written.
-- @col model_flops: Model FLOPs (FLOP): the run's model_flops override when set; else 6 x model_params x tokens_in for training (pretraining, post_training: forward and backward); else 2 x model_params x (tokens_in + tokens_out) for inference (online_inference, batch_inference) and rl_eval (rollouts and scoring are forward passes; an rl_eval job that also trains should give its model_flops). Attention FLOPs and recomputation are not counted (the usual 6ND / 2ND approximation). Null for other classes and when params or tokens are missing or zero (a run that failed before its first token has no MFU, not 0%).
-- @col model_flops_basis: How model_flops was found: override, 6ND (training) or 2ND (inference); null when unknown.
-- @col held_accelerator_seconds: Accelerator-seconds the run held on billed resources (run_held_hours).
-- @col peak_tflops_spec: Spec peak dense bf16 TFLOP/s of one of the run's accelerators (accelerator_specs).
-- @col nodes_held: Distinct resources (nodes) the run held.
-- @col nodes_probed: Of those, nodes with a verified bf16 probe result.
-- @col measured_peak_tflops: The slowest measured ceiling among the nodes it held: per node, the best verified bf16 TFLOP/s (accelerator_efficiency.best_tflops) on the node's most recent probe day on or before the run's last held day (the node's first probe day after it when it had none before). Null unless every node it held was probed.
-- @col slowest_node: The node with that slowest ceiling (of nodes equally slow, the first by name).
-- @col mfu_spec_pct: model_flops / (held_accelerator_seconds x peak_tflops_spec x 1e12) x 100.
-- @col mfu_measured_pct: model_flops / (held_accelerator_seconds x measured_peak_tflops x 1e12) x 100: MFU against what its slowest node can really do (the MAMF finder's advice).
WITH held_nodes AS (
    SELECT
        run_id,
        resource_name AS node,
        sum(held_accelerator_nanos) AS held_nanos,
        CAST(max(hour) AS DATE) AS last_held_day
    FROM run_held_hours
    GROUP BY run_id, resource_name
),
held AS (
    SELECT
        run_id,
        CAST(sum(held_nanos) AS DOUBLE) / 1e9 AS held_accelerator_seconds,
        count(*) AS nodes_held,
        max(last_held_day) AS last_held_day
    FROM held_nodes
    GROUP BY run_id
),
node_ceilings AS (
    SELECT node, day, min(best_tflops) AS best_tflops
    FROM accelerator_efficiency
    WHERE dtype = 'bf16' AND best_tflops IS NOT NULL
    GROUP BY node, day
),
run_node_ceilings AS (
    SELECT
        n.run_id,
        n.node,
        c.best_tflops
    FROM held_nodes AS n
    JOIN held AS h USING (run_id)
    JOIN node_ceilings AS c ON c.node = n.node
    QUALIFY row_number() OVER (
        PARTITION BY n.run_id, n.node
        ORDER BY c.day > h.last_held_day, abs(date_diff('day', c.day, h.last_held_day))
    ) = 1
),
measured AS (
    -- the slowest node; of nodes equally slow, the first by name (reruns name the same one)
    SELECT
        run_id,
        count(*) OVER (PARTITION BY run_id) AS nodes_probed,
        best_tflops AS measured_peak_tflops,
        node AS slowest_node
    FROM run_node_ceilings
    QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY best_tflops, node) = 1
),
flops AS (
    SELECT
        run_id,
        CASE
            WHEN model_flops IS NOT NULL THEN model_flops
            WHEN workload_class IN ('pretraining', 'post_training') AND tokens_in > 0
                THEN 6.0 * CAST(model_params AS DOUBLE) * tokens_in
            WHEN workload_class IN ('online_inference', 'batch_inference', 'rl_eval')
                 AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0
                THEN 2.0 * CAST(model_params AS DOUBLE) * (coalesce(tokens_in, 0) + coalesce(tokens_out, 0))
        END AS model_flops,
        CASE
            WHEN model_flops IS NOT NULL THEN 'override'
            WHEN workload_class IN ('pretraining', 'post_training')
                 AND model_params IS NOT NULL AND tokens_in > 0 THEN '6ND'
            WHEN workload_class IN ('online_inference', 'batch_inference', 'rl_eval')
                 AND model_params IS NOT NULL AND coalesce(tokens_in, 0) + coalesce(tokens_out, 0) > 0 THEN '2ND'
        END AS model_flops_basis
    FROM jobs
)
SELECT
    j.run_id,
    j.workload_class,
    j.accelerator_type,
    j.model_params,
    j.tokens_in,
    j.tokens_out,
    f.model_flops,
    f.model_flops_basis,
    coalesce(h.held_accelerator_seconds, 0) AS held_accelerator_seconds,
    spec.peak_tflops_spec,
    coalesce(h.nodes_held, 0) AS nodes_held,
    coalesce(m.nodes_probed, 0) AS nodes_probed,
    CASE WHEN m.nodes_probed = h.nodes_held THEN m.measured_peak_tflops END AS measured_peak_tflops,
    CASE WHEN m.nodes_probed = h.nodes_held THEN m.slowest_node END AS slowest_node,
    f.model_flops / (nullif(h.held_accelerator_seconds, 0) * spec.peak_tflops_spec * 1e12) * 100 AS mfu_spec_pct,
    CASE WHEN m.nodes_probed = h.nodes_held
         THEN f.model_flops / (nullif(h.held_accelerator_seconds, 0) * m.measured_peak_tflops * 1e12) * 100
    END AS mfu_measured_pct
FROM jobs AS j
JOIN flops AS f USING (run_id)
LEFT JOIN held AS h USING (run_id)
LEFT JOIN accelerator_specs AS spec
    ON spec.accelerator_type = j.accelerator_type AND spec.dtype = 'bf16'
LEFT JOIN measured AS m USING (run_id)
ORDER BY j.run_id
