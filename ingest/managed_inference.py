"""Managed inference inputs into their raw tables: requests by the UTC day they started, usage
and cost buckets by the UTC day they start, the price book whole (it is small and dated)."""

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.inference.days import managed_days
from flopledger.collectors.inference.gateway import read_gateway_logs
from flopledger.collectors.inference.price_book import read_price_book
from flopledger.collectors.inference.provider_export import (
    MANAGED_COSTS_SCHEMA,
    MANAGED_USAGE_SCHEMA,
    read_provider_export,
)
from flopledger.collectors.quarantine import Quarantined
from flopledger.ingest.inputs import pattern_inputs, source_inputs
from flopledger.ingest.loading import replace_days, store_quarantine
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Metadata, Source, Table
from flopledger.models import query_sql
from flopledger.settings import Config

TABLES = (
    Table(
        "managed_requests",
        "One row per request a gateway sent to a managed provider (LiteLLM spend logs).",
    ),
    Table("managed_usage", "Providers' usage buckets (OpenAI organisation usage format)."),
    Table("managed_costs", "Providers' cost buckets (OpenAI organisation costs format)."),
    Table("managed_prices", "The dated price book of managed inference."),
)
PROVIDER_EXPORTS = "sources.managed_inference.provider_exports"


def read_all(config: Config, run_key: str | None = None) -> dict[str, Any]:
    """Every managed inference input the config names (local or gs://, listed once per run
    under `run_key`), read: tables, quarantine rows, and what it took to get the files."""
    source = config.sources.managed_inference
    assert source is not None
    inputs = source_inputs(config, "managed_inference", run_key)
    requests, bad = read_gateway_logs(inputs.paths)
    usage, costs = [MANAGED_USAGE_SCHEMA.empty_table()], [MANAGED_COSTS_SCHEMA.empty_table()]
    for export in source.provider_exports:
        key = f"sources.managed_inference.provider_exports[{export.provider}]"
        files = pattern_inputs(config, key, [*export.usage, *export.costs], run_key)
        inputs.add(files)
        read = read_provider_export(export.provider, files.paths)
        usage.append(read.usage)
        costs.append(read.costs)
        bad += read.quarantined
    book = source.price_book
    found = pattern_inputs(
        config, "sources.managed_inference.price_book", [book] if book else [], run_key
    )
    inputs.add(found)
    prices, refused = read_price_book(None if book is None else (found.paths or [Path(book)])[0])
    return {
        "inputs": inputs,
        "managed_requests": requests,
        "managed_usage": pa.concat_tables(usage),
        "managed_costs": pa.concat_tables(costs),
        "managed_prices": prices,
        "quarantined": bad + refused,
    }


DAY_OF = {
    "managed_requests": "started_at",
    "managed_usage": "bucket_start",
    "managed_costs": "bucket_start",
}
SUMMED = {
    "managed_requests": ("spend",),
    "managed_usage": ("input_tokens", "output_tokens", "num_model_requests"),
    "managed_costs": ("amount",),
}


def _fingerprints(name: str, table: pa.Table) -> dict[date, tuple[int, Decimal]]:
    """Per UTC day: rows and the sum `managed_loaded_days` takes (nulls as 0)."""
    days = pc.cast(table[DAY_OF[name]], pa.date32()).to_pylist()
    sums = [table[c].to_pylist() for c in SUMMED[name]]
    found: dict[date, tuple[int, Decimal]] = {}
    for i, day in enumerate(days):
        n, total = found.get(day, (0, Decimal(0)))
        found[day] = (n + 1, total + sum((Decimal(col[i] or 0) for col in sums), Decimal(0)))
    return found


def days_to_replace(
    warehouse: Any, read: dict[str, Any], window: list[date]
) -> dict[str, list[date]]:
    """Per table: the window's days, and every other day the inputs hold differently from what
    is loaded (a late gateway file, a revised cost page), however old: late rows are never lost
    for falling outside the scheduled window. Days the inputs no longer hold are left alone."""
    loaded: dict[str, dict[date, tuple[int, Decimal]]] = {name: {} for name in DAY_OF}
    for row in warehouse.query(query_sql("managed_loaded_days")).to_pylist():
        loaded[row["table_name"]][row["day"]] = (row["n"], row["amount"])
    chosen = {}
    for name in DAY_OF:
        held = _fingerprints(name, read[name])
        late = {day for day, print_ in held.items() if loaded[name].get(day) != print_}
        chosen[name] = sorted(set(window) | late)
    return chosen


def load(warehouse: Any, read: dict[str, Any], window: list[date]) -> dict[str, pa.Table]:
    """Replace the days of each dated table that `days_to_replace` picks, and the whole price book."""
    quarantined: list[Quarantined] = read["quarantined"]
    days = days_to_replace(warehouse, read, window)
    loaded = {
        name: replace_days(warehouse, name, DAY_OF[name], read[name], days[name]) for name in DAY_OF
    }
    loaded["managed_prices"] = read["managed_prices"]
    warehouse.replace_all("managed_prices", read["managed_prices"])
    store_quarantine(warehouse, quarantined)
    return loaded


class ManagedInference(Source):
    name = "managed_inference"
    tables = TABLES
    day_slack = None  # gateway logs and provider exports are read whole

    def find_days(self, run: IngestRun) -> set[date]:
        """The days of the gateway's requests and of the providers' usage and cost buckets."""
        source = run.config.sources.managed_inference
        if source is None:
            return set()
        return managed_days(
            self.inputs(run).paths,
            source,
            lambda patterns: (
                pattern_inputs(run.config, PROVIDER_EXPORTS, patterns, run.run_key).paths
            ),
        )

    def load(self, run: IngestRun) -> Loaded:
        if run.config.sources.managed_inference is None:
            return self.not_configured()
        read = read_all(run.config, run.run_key)
        loaded = load(run.warehouse, read, run.days)
        bad = len(read["quarantined"])
        run.info(
            "managed inference: "
            + ", ".join(f"{n} {t.num_rows} rows" for n, t in loaded.items())
            + f", {bad} quarantined"
        )
        result: Loaded = {}
        for name, table in loaded.items():
            counts: Metadata = {"rows_loaded": table.num_rows}
            if name == "managed_requests":  # the files, once: they feed all four tables
                counts |= {"rows_read": read[name].num_rows + bad, "rows_quarantined": bad}
                counts |= read["inputs"].metadata(run)
            result[name] = counts
        return result
