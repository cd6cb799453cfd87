"""A source's input files for one run: listed once per run, fetched once, a day window at a time.

Every source (its asset, and `flopledger run`'s search for the days the inputs hold) asks here,
with the run's id as the key, so a run lists each source's paths once however many steps and
days ask, and downloads each remote object at most once (collectors/inputs.py). Local and
`gs://` paths go the same way; readers get local paths either way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from flopledger.collectors.gcs import reader_client
from flopledger.collectors.inputs import InputCache, InputObject, Listing, for_days, window_days
from flopledger.settings import Config

if TYPE_CHECKING:
    from flopledger.ingest.run import IngestRun

CACHE_FOLDER = "input_cache"


@dataclass
class SourceInputs:
    """The local paths a source reads, and what it took to get them."""

    paths: list[Path] = field(default_factory=list)
    listed: int = 0
    downloaded: int = 0
    reused: int = 0
    warnings: list[str] = field(default_factory=list)

    def add(self, other: SourceInputs) -> None:
        """Fold in another day's inputs (files counted once however many days read them)."""
        known = {str(p) for p in self.paths}
        self.paths.extend(p for p in other.paths if str(p) not in known)
        self.listed = max(self.listed, other.listed)
        self.downloaded += other.downloaded
        self.reused += other.reused
        self.warnings.extend(w for w in other.warnings if w not in self.warnings)

    def metadata(self, run: IngestRun) -> dict[str, int | str]:
        """A table's account of its inputs; each warning said (the run report prints them)."""
        for warning in self.warnings:
            run.warning(warning)
        meta: dict[str, int | str] = {
            "files": len(self.paths),
            "objects_downloaded": self.downloaded,
        }
        if self.warnings:
            meta["input_warnings"] = "\n".join(self.warnings)
        return meta


def input_cache(config: Config) -> InputCache:
    """The run-to-run cache of remote objects: a folder beside the warehouse file."""
    root = Path(config.warehouse.path).parent / CACHE_FOLDER
    return InputCache(root, reader_client, config.warehouse.input_cache_days)


def source_inputs(
    config: Config,
    name: str,
    run_key: str | None,
    days: list[date] | None = None,
    slack: int | None = None,
) -> SourceInputs:
    """The files `sources.<name>` reads for `days`, remote ones fetched: all its files when
    `days` is None or `slack` is (the days by which a file may run past the day its name says;
    None where names bound no day: the file is read whole)."""
    source = getattr(config.sources, name)
    if source is None or not source.paths:
        return SourceInputs()
    slack = slack if days else None
    return _inputs(config, f"sources.{name}", list(source.paths), run_key, days, slack)


def pattern_inputs(
    config: Config, key: str, patterns: list[str], run_key: str | None
) -> SourceInputs:
    """The files of paths a source names besides `paths` (a provider's exports, a price book),
    found the same way; `key` names them in warnings."""
    if not patterns:
        return SourceInputs()
    return _inputs(config, key, patterns, run_key, None, None)


def _inputs(
    config: Config,
    key: str,
    patterns: list[str],
    run_key: str | None,
    days: list[date] | None,
    slack: int | None,
) -> SourceInputs:
    window = window_days(days, slack) if days and slack is not None else None
    listing = input_cache(config).listing(patterns, run_key, window)
    objects = listing.objects
    if days and slack is not None:
        objects = for_days(objects, days, slack)
    return fetch_inputs(config, key, listing, objects)


def pattern_listing(config: Config, patterns: list[str], run_key: str | None) -> Listing:
    """What `patterns` match (listed once per run under `run_key`), fetching nothing: for a
    source that picks which of them to read (ingest/file_marks.py)."""
    if not patterns:
        return Listing()
    return input_cache(config).listing(patterns, run_key)


def fetch_inputs(
    config: Config, key: str, listing: Listing, objects: list[InputObject]
) -> SourceInputs:
    """Local paths of `objects` (some of `listing`'s), remote ones fetched; the listing's
    warnings and the fetch's, named by `key`."""
    fetched = input_cache(config).fetch(objects)
    warnings = [f"{key}: {w}" for w in [*listing.warnings, *fetched.warnings]]
    return SourceInputs(
        fetched.paths, len(listing.objects), fetched.downloaded, fetched.reused, warnings
    )


def source_listing(config: Config, name: str, run_key: str | None) -> list[InputObject]:
    """What source `name`'s paths match (listed once per run), without fetching anything."""
    source = getattr(config.sources, name)
    if source is None or not source.paths:
        return []
    return input_cache(config).listing(list(source.paths), run_key).objects


def list_sources(config: Config, names: Iterable[str], run_key: str) -> None:
    """List the paths of each source named once under the run's key, fetching nothing: a run
    whose window is given needs no day found, and its steps, a day each, reuse this one
    listing (each gs:// path listed once a run)."""
    for name in names:
        source_listing(config, name, run_key)
