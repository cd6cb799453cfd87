"""The NVML agent: per-minute GPU counters from every node, spooled as Parquet.

Modules: `nvml` (the one door to pynvml), `simulated` (a scenario-driven stand-in with
pynvml's function names), `sampler` (one reading per GPU per interval), `aggregate`
(readings -> one `gpu_samples` row per GPU per minute), `schema`, `spool` (atomic
Parquet files, rotation and cap), `upload` (Cloud Storage), `read` (the pipeline's
loader) and `agent` (the loop). Nothing here imports pynvml at import time.
"""
