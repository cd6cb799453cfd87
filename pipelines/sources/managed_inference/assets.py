"""Managed inference inputs into their raw tables: requests by the UTC day they started, usage
and cost buckets by the UTC day they start, the price book whole (it is small and dated)."""

from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa

from collectors.inference.gateway import read_gateway_logs
from collectors.inference.price_book import read_price_book
from collectors.inference.provider_export import (
    MANAGED_COSTS_SCHEMA,
    MANAGED_USAGE_SCHEMA,
    read_provider_export,
)
from collectors.quarantine import Quarantined
from pipelines.loading import counts_metadata, replace_days, store_quarantine
from pipelines.partitions import window_days
from pipelines.resources import Flopledger
from settings import Config
from settings.config_file import ManagedInferenceConfig

TABLES = {
    "managed_requests": "One row per request a gateway sent to a managed provider (LiteLLM spend logs).",
    "managed_usage": "Providers' usage buckets (OpenAI organisation usage format).",
    "managed_costs": "Providers' cost buckets (OpenAI organisation costs format).",
    "managed_prices": "The dated price book of managed inference.",
}


def read_all(config: Config) -> dict[str, Any]:
    """Every managed inference input the config names, read: tables and quarantine rows."""
    source = config.sources.managed_inference
    assert source is not None
    requests, bad = read_gateway_logs(config.source_files("managed_inference"))
    usage, costs = [MANAGED_USAGE_SCHEMA.empty_table()], [MANAGED_COSTS_SCHEMA.empty_table()]
    for export in source.provider_exports:
        files = ManagedInferenceConfig.matching([*export.usage, *export.costs])
        read = read_provider_export(export.provider, files)
        usage.append(read.usage)
        costs.append(read.costs)
        bad += read.quarantined
    book = source.price_book
    prices, refused = read_price_book(None if book is None else Path(book))
    return {
        "managed_requests": requests,
        "managed_usage": pa.concat_tables(usage),
        "managed_costs": pa.concat_tables(costs),
        "managed_prices": prices,
        "quarantined": bad + refused,
    }


def load(warehouse: Any, read: dict[str, Any], days: list) -> dict[str, pa.Table]:
    """Replace the window's days of each dated table and the whole price book."""
    quarantined: list[Quarantined] = read["quarantined"]
    loaded = {
        "managed_requests": replace_days(
            warehouse, "managed_requests", "started_at", read["managed_requests"], days
        ),
        "managed_usage": replace_days(
            warehouse, "managed_usage", "bucket_start", read["managed_usage"], days
        ),
        "managed_costs": replace_days(
            warehouse, "managed_costs", "bucket_start", read["managed_costs"], days
        ),
        "managed_prices": read["managed_prices"],
    }
    warehouse.replace_all("managed_prices", read["managed_prices"])
    store_quarantine(warehouse, quarantined)
    return loaded


def build_assets(partitions: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name="managed_inference_ingest",
        group_name="raw",
        partitions_def=partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        specs=[dg.AssetSpec(n, kinds={"duckdb"}, description=d) for n, d in TABLES.items()],
    )
    def managed_inference_ingest(context: dg.AssetExecutionContext, flopledger: Flopledger):
        config = flopledger.config()
        if config.sources.managed_inference is None:
            for name in TABLES:
                yield dg.MaterializeResult(
                    asset_key=name, metadata={"skipped": dg.MetadataValue.text("not configured")}
                )
            return
        read = read_all(config)
        loaded = load(flopledger.warehouse(), read, window_days(context))
        bad = len(read["quarantined"])
        context.log.info(
            "managed inference: "
            + ", ".join(f"{n} {t.num_rows} rows" for n, t in loaded.items())
            + f", {bad} quarantined"
        )
        for name, table in loaded.items():
            counts = {"rows_loaded": table.num_rows}
            if name == "managed_requests":
                counts |= {"rows_read": read[name].num_rows + bad, "rows_quarantined": bad}
            yield dg.MaterializeResult(asset_key=name, metadata=counts_metadata(**counts))

    return [managed_inference_ingest]
