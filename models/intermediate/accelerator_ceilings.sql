-- @table: Each accelerator type's best probe-measured bf16 TFLOP/s over every probe day (accelerator_efficiency.best_tflops): the portfolio's delivered-PFLOP-hour ceiling. A table of its own, so that the portfolio is rebuilt whole only when a best changes, by month otherwise.
-- @col family: Accelerator type.
-- @col best_tflops: Its best verified bf16 TFLOP/s on any node and day.
SELECT accelerator_type AS family, max(best_tflops) AS best_tflops
FROM accelerator_efficiency
WHERE dtype = 'bf16' AND accelerator_type IS NOT NULL AND best_tflops > 0
GROUP BY ALL
