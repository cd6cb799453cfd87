-- @table: The accelerator portfolio: per UTC month (of the runs' start), family (an accelerator type such as H100-80GB or TPU-v5p, or a managed provider) and workload class, what the work cost and what it delivered, side by side: paid accelerator-hours, busy share, effective USD per accelerator-hour, idle shares, USD per delivered PFLOP-hour (against the family's best probe-measured bf16 TFLOP/s), mean MFU and USD per million tokens. Measured figures only: no estimate of what a run would have cost elsewhere. Self-hosted rows sum to cost_per_run exactly. USD.
-- @grain month: month
-- @check portfolio_sums_to_the_runs (error, blocking): The portfolio's self-hosted cost per family and class sums to the runs' cost (cost_per_run), exactly.
-- @col month: First day of the UTC month the runs started (self-hosted; submitted when never started) or the managed traffic's month.
-- @col venue: self_hosted (our accelerators, from cost_per_run) or managed (a provider, from managed_inference_daily).
-- @col family: Accelerator family: the runs' canonical accelerator type (null for runs with none), or the provider's name for managed rows.
-- @col workload_class: Workload class.
-- @col runs: Self-hosted runs (null for managed rows).
-- @col requests: Managed requests (null for self-hosted rows).
-- @col paid_accelerator_hours: Paid accelerator-hours allocated to the runs (cost_per_run.allocated_accelerator_hours: held, clipped to what was paid). Null for managed rows.
-- @col busy_accelerator_hours: Of the accelerator-hours the runs held, those telemetry shows busy (null when no run had telemetry).
-- @col busy_pct: busy_accelerator_hours / held accelerator-hours of the runs with telemetry x 100: the busy share of what they held.
-- @col effective_cost: What the work cost (USD). Self-hosted: the runs' effective cost (cost_per_run): their allocated share of the resource-hours they held, INCLUDING the allocated idle (held but not busy), plus billing rows labelled with them; it EXCLUDES the unallocated idle (capacity no run held), which is the family's, shown in family_unallocated_idle_cost. Managed: what the provider's requests cost.
-- @col effective_cost_per_accelerator_hour: effective_cost / paid_accelerator_hours (USD; allocated idle included, unallocated idle not).
-- @col allocated_idle_cost: Of effective_cost, the part spent while the accelerators were held but not busy (USD); null when some run had no telemetry.
-- @col allocated_idle_share: allocated_idle_cost / effective_cost.
-- @col family_unallocated_idle_cost: The family's unallocated idle that month (USD, idle_capacity: paid, held by no run), the same on every class row of the family and month: it belongs to no class and is not in effective_cost.
-- @col unallocated_idle_share: family_unallocated_idle_cost / the family's whole effective cost that month (idle_capacity: allocated + unallocated).
-- @col best_measured_tflops: The family's best probe-measured bf16 TFLOP/s per accelerator (accelerator_efficiency.best_tflops, highest over nodes and days); null when no probe measured the family.
-- @col delivered_pflop_hours: busy accelerator-hours of the runs with telemetry x best_measured_tflops / 1000: the PFLOP-hours the busy time could deliver at the family's measured ceiling.
-- @col cost_per_delivered_pflop_hour: Effective cost of the runs with telemetry / delivered_pflop_hours (USD, 9 places); null without a probe-measured ceiling or without busy time.
-- @col mean_mfu_spec_pct: Model FLOPs utilisation against spec peak, mean over the runs that have one weighted by their held accelerator-hours, percent.
-- @col mean_mfu_measured_pct: The same against the probe-measured peak, percent.
-- @col tokens: Tokens read and written (runs with tokens; managed input + output).
-- @col cost_per_million_tokens: Effective cost of the work with tokens / (tokens / 1e6) (USD, truncated to 9 places); null without tokens.
WITH run_rows AS (
    SELECT
        CAST(date_trunc('month', coalesce(started_at, submitted_at)) AS DATE) AS month,
        accelerator_type AS family,
        workload_class,
        to_nanos(effective_cost) AS cost_nanos,
        to_nanos(allocated_idle_cost) AS idle_nanos,
        allocated_accelerator_hours,
        accelerator_hours,
        busy_accelerator_hours,
        mfu_spec_pct,
        mfu_measured_pct,
        CAST(coalesce(tokens_in, 0) + coalesce(tokens_out, 0) AS HUGEINT) AS tokens
    FROM cost_per_run
),
self_hosted AS (
    SELECT
        month,
        family,
        workload_class,
        count(*) AS runs,
        CAST(sum(CAST(allocated_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS paid_accelerator_hours,  -- exact decimal sums: rerun-stable
        CAST(sum(CAST(busy_accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) AS busy_accelerator_hours,
        CAST(sum(CAST(accelerator_hours AS DECIMAL(38, 12))) FILTER (WHERE busy_accelerator_hours IS NOT NULL) AS DOUBLE) AS busy_basis_hours,
        sum(cost_nanos) AS cost_nanos,
        sum(cost_nanos) FILTER (WHERE busy_accelerator_hours IS NOT NULL) AS busy_cost_nanos,
        CASE WHEN bool_and(idle_nanos IS NOT NULL) THEN sum(idle_nanos) END AS idle_nanos,
        -- An MFU past 1e9 percent (a probe row claiming a near-zero ceiling) would overflow the
        -- exact sum: such a class's mean is null (absurd_mfu), not a failed mart.
        CAST(sum(CAST(CASE WHEN abs(mfu_spec_pct) < 1e9 THEN mfu_spec_pct END * accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) / nullif(CAST(sum(CAST(accelerator_hours AS DECIMAL(38, 12))) FILTER (WHERE mfu_spec_pct IS NOT NULL) AS DOUBLE), 0) AS mean_mfu_spec_pct,
        CAST(sum(CAST(CASE WHEN abs(mfu_measured_pct) < 1e9 THEN mfu_measured_pct END * accelerator_hours AS DECIMAL(38, 12))) AS DOUBLE) / nullif(CAST(sum(CAST(accelerator_hours AS DECIMAL(38, 12))) FILTER (WHERE mfu_measured_pct IS NOT NULL) AS DOUBLE), 0) AS mean_mfu_measured_pct,
        bool_or(abs(mfu_spec_pct) >= 1e9) AS absurd_spec_mfu,
        bool_or(abs(mfu_measured_pct) >= 1e9) AS absurd_measured_mfu,
        CAST(sum(tokens) FILTER (WHERE tokens > 0) AS HUGEINT) AS tokens,
        sum(cost_nanos) FILTER (WHERE tokens > 0) AS token_cost_nanos
    FROM run_rows
    GROUP BY ALL
),
family_idle AS (
    SELECT
        CAST(date_trunc('month', hour) AS DATE) AS month,
        accelerator_type AS family,
        sum(to_nanos(unallocated_idle_cost)) AS unallocated_nanos,
        sum(to_nanos(effective_cost)) AS family_nanos
    FROM idle_capacity
    WHERE accelerator_type IS NOT NULL
    GROUP BY ALL
),
ceilings AS (
    SELECT family, best_tflops FROM accelerator_ceilings
),
managed AS (
    SELECT
        CAST(date_trunc('month', day) AS DATE) AS month,
        provider AS family,
        workload_class,
        sum(requests) AS requests,
        sum(to_nanos(cost)) AS cost_nanos,
        CAST(sum(input_tokens + output_tokens) FILTER (WHERE input_tokens + output_tokens > 0) AS HUGEINT) AS tokens,
        sum(to_nanos(cost)) FILTER (WHERE input_tokens + output_tokens > 0) AS token_cost_nanos
    FROM managed_inference_daily
    GROUP BY ALL
),
measured AS (
    SELECT
        s.*,
        i.unallocated_nanos,
        i.family_nanos,
        c.best_tflops,
        s.busy_accelerator_hours * c.best_tflops / 1000 AS delivered_pflop_hours
    FROM self_hosted AS s
    LEFT JOIN family_idle AS i ON i.month = s.month AND i.family = s.family
    LEFT JOIN ceilings AS c ON c.family = s.family
)
SELECT
    month,
    'self_hosted' AS venue,
    family,
    workload_class,
    runs,
    CAST(NULL AS HUGEINT) AS requests,
    paid_accelerator_hours,
    busy_accelerator_hours,
    100 * busy_accelerator_hours / nullif(busy_basis_hours, 0) AS busy_pct,
    from_nanos(cost_nanos) AS effective_cost,
    CASE WHEN paid_accelerator_hours > 0
         THEN TRY_CAST(from_nanos(cost_nanos) / paid_accelerator_hours AS DECIMAL(38, 9)) END AS effective_cost_per_accelerator_hour,
    from_nanos(idle_nanos) AS allocated_idle_cost,
    CASE WHEN cost_nanos > 0 THEN CAST(idle_nanos AS DOUBLE) / CAST(cost_nanos AS DOUBLE) END AS allocated_idle_share,
    from_nanos(unallocated_nanos) AS family_unallocated_idle_cost,
    CASE WHEN family_nanos > 0 THEN CAST(unallocated_nanos AS DOUBLE) / CAST(family_nanos AS DOUBLE) END AS unallocated_idle_share,
    best_tflops AS best_measured_tflops,
    delivered_pflop_hours,
    CASE WHEN delivered_pflop_hours > 0
         THEN TRY_CAST(from_nanos(busy_cost_nanos) / delivered_pflop_hours AS DECIMAL(38, 9)) END AS cost_per_delivered_pflop_hour,
    CASE WHEN NOT coalesce(absurd_spec_mfu, false) THEN mean_mfu_spec_pct END AS mean_mfu_spec_pct,
    CASE WHEN NOT coalesce(absurd_measured_mfu, false) THEN mean_mfu_measured_pct END AS mean_mfu_measured_pct,
    tokens,
    CASE WHEN tokens > 0 THEN from_nanos(token_cost_nanos * 1000000 // tokens) END AS cost_per_million_tokens
FROM measured
UNION ALL
SELECT
    month,
    'managed' AS venue,
    family,
    workload_class,
    CAST(NULL AS BIGINT) AS runs,
    requests,
    CAST(NULL AS DOUBLE) AS paid_accelerator_hours,
    CAST(NULL AS DOUBLE) AS busy_accelerator_hours,
    CAST(NULL AS DOUBLE) AS busy_pct,
    from_nanos(cost_nanos) AS effective_cost,
    CAST(NULL AS DECIMAL(38, 9)) AS effective_cost_per_accelerator_hour,
    CAST(NULL AS DECIMAL(38, 9)) AS allocated_idle_cost,
    CAST(NULL AS DOUBLE) AS allocated_idle_share,
    CAST(NULL AS DECIMAL(38, 9)) AS family_unallocated_idle_cost,
    CAST(NULL AS DOUBLE) AS unallocated_idle_share,
    CAST(NULL AS DOUBLE) AS best_measured_tflops,
    CAST(NULL AS DOUBLE) AS delivered_pflop_hours,
    CAST(NULL AS DECIMAL(38, 9)) AS cost_per_delivered_pflop_hour,
    CAST(NULL AS DOUBLE) AS mean_mfu_spec_pct,
    CAST(NULL AS DOUBLE) AS mean_mfu_measured_pct,
    tokens,
    CASE WHEN tokens > 0 THEN from_nanos(token_cost_nanos * 1000000 // tokens) END AS cost_per_million_tokens
FROM managed
ORDER BY month, workload_class, venue DESC, family NULLS LAST
