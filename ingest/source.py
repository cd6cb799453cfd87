"""A source: one input of the outside world (a billing export, spool files, a jobs file ...),
the raw tables it writes, the days its inputs hold, and one run's read and load.

Adding a source is a module (or folder) here with its `Source`, and one line in
ingest/registry.py: pipelines/sources.py makes its asset (named after its table, or
`<name>_ingest` when it writes several), `flopledger run` finds its days."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import date
from typing import Any, ClassVar

from flopledger.ingest.inputs import SourceInputs, source_inputs
from flopledger.ingest.run import IngestRun
from flopledger.settings import Config

# One table's account of a run, under the names the run report and Dagster's UI read: counts
# (rows_read, rows_loaded, rows_duplicate, rows_quarantined, rows_outside_window, rows_skipped,
# rows_failed, files, objects_downloaded ...) as ints, notes (skipped_because, input_warnings)
# as text, and maps (export_time_taken_through) as JSON.
Metadata = dict[str, int | str | dict[str, Any]]
Loaded = dict[str, Metadata]  # per table the source writes
NOT_CONFIGURED: Metadata = {"skipped": "not configured"}


@dataclass(frozen=True)
class Table:
    """A raw table a source writes, and what one row of it is (its asset's description)."""

    name: str
    description: str


class Source(ABC):
    # The source's key under `sources:` in flopledger.yaml.
    name: ClassVar[str]
    tables: ClassVar[tuple[Table, ...]]
    # By how many days a file may run past the day its name says, where names bound the days
    # a file holds (a run then reads only its window's files); None: files are read whole.
    day_slack: ClassVar[int | None] = None

    def config_keys(self) -> tuple[str, ...]:
        """The `sources:` keys whose paths it reads (a run lists each once): its own."""
        return (self.name,)

    def configured(self, config: Config) -> bool:
        """Whether the config names any of its keys (else it has no days to find)."""
        return any(getattr(config.sources, key) is not None for key in self.config_keys())

    def inputs(self, run: IngestRun, days: list[date] | None = None) -> SourceInputs:
        """Its files for `days` (every file when None, or when names bound no day), local or
        gs://, listed once per run and fetched once (ingest/inputs.py)."""
        return source_inputs(run.config, self.name, run.run_key, days, self.day_slack)

    def not_configured(self) -> Loaded:
        """Each of its tables skipped: the config does not name the source."""
        return {table.name: dict(NOT_CONFIGURED) for table in self.tables}

    @abstractmethod
    def find_days(self, run: IngestRun) -> set[date]:
        """The UTC days its inputs hold (what `flopledger run` materialises)."""

    @abstractmethod
    def load(self, run: IngestRun) -> Loaded:
        """Read the run's inputs and load them into its tables; each table's counts."""
