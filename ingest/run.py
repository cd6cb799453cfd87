"""What a source is handed for one run: the config, the warehouse, the run's key, clock and
window, and where to say what it did.

Plain data: pipelines/sources.py fills one from Dagster's context (the run's id, its
`flopledger/now` tag, its partition range); `flopledger run` one to find the days its inputs
hold (ingest/registry.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime

from flopledger.collectors.limits import Limits
from flopledger.ingest.loading import run_limits
from flopledger.settings import Config
from flopledger.warehouse import Warehouse


def _unsaid(_: str) -> None:
    """A run nobody watches (finding days, a test) says nothing."""


@dataclass(frozen=True)
class IngestRun:
    config: Config
    warehouse: Warehouse
    now: datetime  # the run's clock (a schedule's tick, else the wall clock at the edge)
    # The run's id: each source's paths are listed once under it, each object fetched once.
    run_key: str | None = None
    days: list[date] = field(default_factory=list)  # the UTC days of the partition window
    # An explicit backfill range (`flopledger run --from/--to`): every source keeps to `days`.
    window_only: bool = False
    info: Callable[[str], None] = _unsaid
    warning: Callable[[str], None] = _unsaid

    @property
    def limits(self) -> Limits:
        """The plausible bounds of `limits:`, the latest from the run's clock."""
        return run_limits(self.config, self.now)
