"""Names vulture (the dead-code check in `make test`'s lint) cannot see used, each with why.

Everything else it finds unused in the rooms is dead and goes: a helper only tests use belongs
in tests/, one only a benchmark uses in benchmarks/. Vulture reads this file, never runs it.
"""

# ruff: noqa: B018
from vulture.whitelist_utils import Whitelist

_ = Whitelist()

# Fields of dataclasses, NamedTuples and pydantic models: read by name (Arrow columns, JSON,
# CSV headers, the config file) rather than as attributes.
_.memory_gb  # accelerators/mig.py: a MIG profile's memory (the facts table)
_.vendor  # accelerators/spec.py: an accelerator's vendor (the facts table)
_.machine_type  # accelerators/machines.py: the provider's name of a row (what the row is; its test reads it)
_.commit_1y_per_hour  # accelerators/prices.py: a price-book column (TERMS names it)
_.commit_3y_per_hour  # accelerators/prices.py: a price-book column (TERMS names it)
_.fx_rate  # budgets/status.py: a budget_status column
_.run_rate_days  # budgets/status.py: a budget_status column
_.over_budget  # budgets/status.py: a budget_status column
_.upload_uri  # collectors/nvml/agent.py: the agent's config (--upload)
_.spool_bytes  # collectors/nvml/health.py: a health gauge, exported by name
_.upload_backlog  # collectors/nvml/health.py: a health gauge, exported by name
_.upload_failures  # collectors/nvml/health.py: a health gauge, exported by name
_.pod_lookup_errors  # collectors/nvml/health.py: a health gauge, exported by name
_.util_mem_pct  # collectors/nvml/sampler.py: a reading, aggregated by name
_.sm_clock_mhz  # collectors/nvml/sampler.py: a reading, aggregated by name
_.sm_active_pct  # collectors/nvml/sampler.py: a GPM reading, aggregated by name
_.sm_occupancy_pct  # collectors/nvml/sampler.py: a GPM reading, aggregated by name
_.tensor_active_pct  # collectors/nvml/sampler.py: a GPM reading, aggregated by name
_.dram_bw_util_pct  # collectors/nvml/sampler.py: a GPM reading, aggregated by name
_.verify_error_ratio  # probes/results.py: a probe result's field (JSONL)
_.jax_version  # probes/results.py: a probe result's field (JSONL)
_.probe_version  # probes/results.py: a probe result's field (JSONL)
_.base_dir  # settings/config_file.py: where the config was read from (paths resolve from it)
_.model_config  # pydantic: the models' configuration
_.events  # collectors/kubernetes/watch.py: the watch's event count (kube-watch prints it)

# Called by a framework, not by our code.
_._weekday  # budgets/budget_file.py: a pydantic validator
_._thresholds  # budgets/budget_file.py: a pydantic validator
_._one_limit  # budgets/budget_file.py: a pydantic validator
_._sources  # budgets/budget_file.py: a pydantic validator
_._bigquery_names_its_dataset  # settings/config_file.py: a pydantic validator
_._key_fits_policy  # settings/config_file.py: a pydantic validator
_.collect  # collectors/nvml/health.py: prometheus_client's collector protocol
_.log_message  # collectors/nvml/health.py: http.server's logging hook, silenced
_.daemon_threads  # collectors/nvml/health.py: socketserver's setting
_.prec  # decimal contexts' precision (planning/commitment_planner.py, simulator/truth.py)
_.expires  # clients/bigquery.py: a scratch table's expiry (the client's property)
_.enable_list_inference  # clients/bigquery.py: a Parquet load option (the client's property)
_.sample1  # collectors/nvml/sampler.py: NVML's GPM request struct

# The simulated NVML (collectors/nvml/simulated.py) answers pynvml's API by name, arguments
# and all: the agent calls these through collectors/nvml/nvml.py's door.
_.nvmlShutdown
_.nvmlSystemGetDriverVersion
_.nvmlDeviceGetCount
_.nvmlDeviceGetHandleByIndex
_.nvmlDeviceGetUUID
_.nvmlDeviceGetMinorNumber
_.nvmlDeviceGetPciInfo  # collectors/nvml/simulated.py: called by name through the NVML door
_.nvmlDeviceGetMigMode
_.nvmlDeviceGetMaxMigDeviceCount
_.nvmlDeviceGetMigDeviceHandleByIndex
_.nvmlDeviceGetName
_.nvmlDeviceGetUtilizationRates
_.nvmlDeviceGetMemoryInfo
_.nvmlDeviceGetPowerUsage
_.nvmlDeviceGetTotalEnergyConsumption
_.nvmlDeviceGetClockInfo
_.nvmlDeviceGetCurrentClocksEventReasons
_.nvmlDeviceGetCurrentClocksThrottleReasons
_.nvmlDeviceGetTotalEccErrors
_.nvmlDeviceGetComputeRunningProcesses
_.nvmlEventSetCreate
_.nvmlEventSetFree
_.nvmlDeviceGetSupportedEventTypes
_.nvmlDeviceRegisterEvents
_.nvmlEventSetWait
_.nvmlGpmQueryDeviceSupport
_.nvmlGpmSampleAlloc
_.nvmlGpmSampleFree
_.nvmlGpmSampleGet
_.nvmlGpmMetricsGet
_.counter  # nvmlDeviceGetTotalEccErrors's argument
_.error_type  # nvmlDeviceGetTotalEccErrors's argument
_.timeout_ms  # nvmlEventSetWait's argument
_.eventType  # an NVML event's field
_.gpuInstanceId  # an NVML event's field
_.computeInstanceId  # an NVML event's field
_.calls  # the simulated NVML counts the calls made to it (the agent's tests read it)
_.free  # an NVML memory struct's field
_.load_page  # dashboards/page_timing.py: called by benchmarks/dashboard_queries.py, which vulture does not read
_.do_GET  # cli/doctor_server.py: http.server calls its handler's do_GET
