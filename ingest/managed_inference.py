"""Managed inference inputs into their raw tables: requests by the UTC day they started, usage
and cost buckets by the UTC day they start, the price book whole (it is small and dated)."""

from dataclasses import dataclass
from datetime import date
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
from flopledger.collectors.inputs import InputObject, Listing
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.quarantine import Quarantined
from flopledger.ingest import file_marks
from flopledger.ingest.inputs import (
    SourceInputs,
    fetch_inputs,
    input_cache,
    pattern_inputs,
    pattern_listing,
)
from flopledger.ingest.loading import replace_days, store_quarantine
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Metadata, Source, Table
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
SOURCE = "managed_inference"
SOURCE_KEY = "sources.managed_inference"
PROVIDER_EXPORTS = f"{SOURCE_KEY}.provider_exports"


@dataclass(frozen=True)
class _Files:
    """One set of a source's paths: the gateway's logs (no provider) or one provider's pages."""

    key: str  # names it in warnings
    provider: str | None
    listing: Listing


def _listed(config: Config, run_key: str | None) -> list[_Files]:
    """Every file the config names (local or gs://, listed once per run), nothing fetched."""
    source = config.sources.managed_inference
    assert source is not None
    found = [_Files(SOURCE_KEY, None, pattern_listing(config, list(source.paths), run_key))]
    for export in source.provider_exports:
        key = f"{PROVIDER_EXPORTS}[{export.provider}]"
        patterns = [*export.usage, *export.costs]
        found.append(_Files(key, export.provider, pattern_listing(config, patterns, run_key)))
    return found


def _tables(
    files: _Files, paths: list[Path], limits: Limits
) -> tuple[dict[str, pa.Table], list[Quarantined]]:
    if files.provider is None:
        requests, bad = read_gateway_logs(paths, limits)
        return {"managed_requests": requests}, bad
    read = read_provider_export(files.provider, paths, limits)
    return {"managed_usage": read.usage, "managed_costs": read.costs}, read.quarantined


def _days_held(config: Config, files: _Files, obj: InputObject, limits: Limits) -> frozenset[date]:
    """The UTC days the rows of one file fall on (read alone: rows another file also holds
    count too)."""
    tables, _ = _tables(files, input_cache(config).fetch([obj]).paths, limits)
    return frozenset(
        d
        for name, table in tables.items()
        for d in pc.cast(table[DAY_OF[name]], pa.date32()).to_pylist()
        if d is not None
    )


def read_files(
    config: Config,
    listed: list[_Files],
    uris: set[str],
    run_key: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """The files of `listed` named in `uris` (in the listing's order: a request id read twice is
    the first file's), and the price book whole: tables, quarantine rows, and what it took."""
    source = config.sources.managed_inference
    assert source is not None
    inputs = SourceInputs()
    tables: dict[str, list[pa.Table]] = {
        "managed_requests": [],
        "managed_usage": [MANAGED_USAGE_SCHEMA.empty_table()],
        "managed_costs": [MANAGED_COSTS_SCHEMA.empty_table()],
    }
    bad: list[Quarantined] = []
    for files in listed:
        chosen = [o for o in files.listing.objects if o.uri in uris]
        fetched = fetch_inputs(config, files.key, files.listing, chosen)
        inputs.add(fetched)
        read, refused = _tables(files, fetched.paths, limits)
        for name, table in read.items():
            tables[name].append(table)
        bad += refused
    book = source.price_book
    found = pattern_inputs(config, f"{SOURCE_KEY}.price_book", [book] if book else [], run_key)
    inputs.add(found)
    prices, refused = read_price_book(None if book is None else (found.paths or [Path(book)])[0])
    return {
        "inputs": inputs,
        **{name: pa.concat_tables(parts) for name, parts in tables.items()},
        "managed_prices": prices,
        "quarantined": bad + refused,
    }


DAY_OF = {
    "managed_requests": "started_at",
    "managed_usage": "bucket_start",
    "managed_costs": "bucket_start",
}


def load(
    warehouse: Any,
    config: Config,
    window: list[date],
    run_key: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """Read the files that changed since they were last read (ingest/file_marks.py) and those
    holding a day they hold or held, or a day of `window`; replace those days of each dated
    table from what they hold now, and the whole price book. Late rows are never lost for
    falling outside the scheduled window, however old their day; a day the inputs no longer
    hold is left as it was. Returns the rows loaded per table, and what was read."""
    listed = _listed(config, run_key)
    objects = [o for files in listed for o in files.listing.objects]
    marks = file_marks.seen(warehouse, SOURCE)
    fresh = {
        o.uri: file_marks.Mark(o.fingerprint, _days_held(config, files, o, limits))
        for files in listed
        for o in file_marks.changed(files.listing.objects, marks)
    }
    days = set(window).union(*(m.days for m in fresh.values()))
    days = days.union(*(marks[uri].days for uri in fresh if uri in marks))
    again = {o.uri for o in file_marks.holding(objects, marks, days)}
    read = read_files(config, listed, set(fresh) | again, run_key, limits)
    read["unchanged"] = len(objects) - len(fresh) - len(again)
    loaded = {
        name: replace_days(warehouse, name, DAY_OF[name], read[name], sorted(days))
        for name in DAY_OF
    }
    loaded["managed_prices"] = read["managed_prices"]
    warehouse.replace_all("managed_prices", read["managed_prices"])
    store_quarantine(warehouse, read["quarantined"])
    listed_uris = {o.uri for o in objects}
    if fresh or set(marks) - listed_uris:
        kept = {uri: m for uri, m in marks.items() if uri in listed_uris}
        file_marks.store(warehouse, SOURCE, kept | fresh)
    return loaded, read


class ManagedInference(Source):
    name = "managed_inference"
    tables = TABLES
    # Gateway logs and provider exports may hold any day: the files that changed are read,
    # and those holding their days or the window's (ingest/file_marks.py).
    day_slack = None

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
            run.limits,
        )

    def load(self, run: IngestRun) -> Loaded:
        if run.config.sources.managed_inference is None:
            return self.not_configured()
        loaded, read = load(run.warehouse, run.config, run.days, run.run_key, run.limits)
        bad = len(read["quarantined"])
        run.info(
            "managed inference: "
            + ", ".join(f"{n} {t.num_rows} rows" for n, t in loaded.items())
            + f", {bad} quarantined"
        )
        result: Loaded = {}
        for name, table in loaded.items():
            counts: Metadata = {"rows_loaded": table.num_rows}
            if name in DAY_OF:  # a file read for a day it holds may hold days not rebuilt
                counts["rows_outside_window"] = read[name].num_rows - table.num_rows
            if name == "managed_requests":  # the files, once: they feed all four tables
                counts |= {"rows_read": read[name].num_rows + bad, "rows_quarantined": bad}
                counts |= read["inputs"].metadata(run) | {"files_unchanged": read["unchanged"]}
            result[name] = counts
        return result
