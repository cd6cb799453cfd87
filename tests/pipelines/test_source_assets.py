"""Each source's asset, made from its `Source` (pipelines/sources.py): named after its one table,
or `<source>_ingest` over its several; its plain counts become Dagster metadata of their kind."""

import dagster as dg

from flopledger.ingest.registry import SOURCES
from flopledger.pipelines.definitions import build_definitions
from flopledger.pipelines.sources import metadata
from tests.conftest import REPO


def test_each_source_has_its_asset():
    defs = build_definitions(str(REPO / "examples" / "flopledger.yaml"))
    ops = {
        table.name: defs.resolve_assets_def(table.name).node_def.name
        for source in SOURCES
        for table in source.tables
    }
    assert ops == {
        "billing_line_items": "billing_line_items",
        "jobs": "jobs_ingest",
        "job_placements": "jobs_ingest",
        "gpu_samples": "gpu_samples",
        "tpu_samples": "tpu_samples",
        "probe_results": "probe_results",
        "managed_requests": "managed_inference_ingest",
        "managed_usage": "managed_inference_ingest",
        "managed_costs": "managed_inference_ingest",
        "managed_prices": "managed_inference_ingest",
        "focus_line_items": "focus_line_items",
    }
    probes = defs.resolve_assets_def("probe_results")
    assert probes.group_names_by_key[dg.AssetKey("probe_results")] == "raw"
    assert probes.backfill_policy == dg.BackfillPolicy.single_run()


def test_counts_become_metadata_of_their_kind():
    landed = {"files": "2026-10-05 23:00:00"}
    got = metadata({"rows_read": 3, "skipped_because": "CPU-only", "taken_through": landed})
    assert got == {
        "rows_read": dg.MetadataValue.int(3),
        "skipped_because": dg.MetadataValue.text("CPU-only"),
        "taken_through": dg.MetadataValue.json(landed),
    }
