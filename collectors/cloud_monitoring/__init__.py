"""Cloud Monitoring collector: TPU chip metrics per minute -> `tpu_samples`.

Reads `tpu.googleapis.com/accelerator/*` (resource types `tpu_worker` and
`tpu.googleapis.com/GceTpuWorker`) and GKE `kubernetes.io/node/accelerator/*` (`k8s_node`)
from the API or from saved ListTimeSeriesResponse JSON pages. See docs/cloud-monitoring.md.

The API's way in (`collect.collect_tpu_samples`, `query.CloudMonitoringError`, `RetryPolicy`)
is imported from its module: it loads the gRPC client, which a run reading saved pages (every
hourly tick) never needs.
"""

from flopledger.collectors.cloud_monitoring.inventory import Inventory, TpuNode, load_inventory
from flopledger.collectors.cloud_monitoring.pages import PagesByDay, read_saved_pages, write_pages
from flopledger.collectors.cloud_monitoring.schema import TPU_SAMPLES_SCHEMA

__all__ = [
    "TPU_SAMPLES_SCHEMA",
    "Inventory",
    "PagesByDay",
    "TpuNode",
    "load_inventory",
    "read_saved_pages",
    "write_pages",
]
