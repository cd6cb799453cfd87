"""Build a model for what changed since its last build, not for all of history.

Every write to the warehouse records what it changed (bookkeeping.changes: a day, or a table
whole), raw tables and models alike. A model's build reads the changes to the tables it reads
since its own last build and rebuilds by its grain (models/grain.py):

- day: those days; month: the whole months they fall in; run: the runs whose time covers one
  of them (runs_touching.sql), each read over its own days;
- a whole table (no grain), a model never built, one whose SQL changed, or a change to a
  table as a whole: everything;
- nothing changed: nothing.

What it rebuilt is recorded as its own change, so the models that read it follow in turn.
`full` rebuilds everything: the reference an incremental warehouse must equal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta

from flopledger import models
from flopledger.models.grain import whole_months
from flopledger.warehouse.base import Warehouse


@dataclass(frozen=True)
class Scope:
    """What one build rebuilt: everything, some days (month grain: whole months), some runs
    (read over `days`), or nothing."""

    whole: bool = False
    days: tuple[date, ...] = ()
    runs: tuple[str, ...] = ()

    @property
    def nothing(self) -> bool:
        return not self.whole and not self.days

    def describe(self) -> str:
        if self.whole:
            return "whole"
        if self.nothing:
            return "nothing"
        span = f"{len(self.days)} day(s) {self.days[0]} .. {self.days[-1]}"
        return f"{len(self.runs)} run(s) over {span}" if self.runs else span


@dataclass(frozen=True)
class Built:
    name: str
    scope: Scope
    rows: int  # rows written
    windows: tuple[tuple[date, date], ...] = field(default=())  # the [lo, hi) ranges rebuilt


def sql_hash(model: models.Model) -> str:
    return hashlib.sha256(model.sql.encode()).hexdigest()


def ranges(days: Iterable[date]) -> list[tuple[date, date]]:
    """Sorted days as contiguous [first, day after last) ranges."""
    out: list[tuple[date, date]] = []
    for day in sorted(set(days)):
        if out and out[-1][1] == day:
            out[-1] = (out[-1][0], day + timedelta(days=1))
        else:
            out.append((day, day + timedelta(days=1)))
    return out


def plan(
    warehouse: Warehouse, model: models.Model, full: bool = False, days: Iterable[date] = ()
) -> tuple[Scope, int]:
    """What `model` must rebuild now (with `days` rebuilt whatever changed: a backfill's), and
    the newest change it thereby takes in."""
    seq = warehouse.bookkeeping_seq()
    last = warehouse.last_build(model.name)
    forced = set(days)
    if full or last is None or last[0] != sql_hash(model) or not warehouse.has_table(model.name):
        return Scope(whole=True), seq
    changed = warehouse.pending_changes(model.depends_on, last[1])
    if None in changed:
        return Scope(whole=True), seq
    touched = {d for d in changed if d is not None} | forced
    grain = model.grain
    onward = grain.onward if grain is not None else ()
    later = (
        {d for d in warehouse.pending_changes(onward, last[1]) if d is not None}
        if onward
        else set()
    )
    if later:  # a row of these bears on every later day: from its day to the newest
        newest = max(d for d in warehouse.pending_changes(model.depends_on, -1) if d is not None)
        first = min(later)
        touched |= {first + timedelta(days=n) for n in range((newest - first).days + 1)}
    if not touched:
        return Scope(), seq
    if grain is None:
        return Scope(whole=True), seq
    if grain.kind == "day":
        return Scope(days=tuple(sorted(touched))), seq
    if grain.kind == "month":
        return Scope(days=whole_months(touched)), seq
    runs = warehouse.runs_touching(sorted(touched))
    if not runs:
        return Scope(), seq
    covered: set[date] = set()
    for _, first, last_day in runs:
        covered |= {first + timedelta(days=n) for n in range((last_day - first).days + 1)}
    return Scope(days=tuple(sorted(covered)), runs=tuple(r for r, _, _ in runs)), seq


def build(warehouse: Warehouse, name: str, full: bool = False, days: Iterable[date] = ()) -> Built:
    """Rebuild `name` for what changed (everything with `full`; `days` whatever changed), record
    what it rebuilt, and return it."""
    model = models.model(name)
    scope, seq = plan(warehouse, model, full, days)
    if scope.whole:
        rows = warehouse.build_mart(name)
        windows: tuple[tuple[date, date], ...] = ()
    elif scope.runs:
        # One window over the runs' days: each run is rebuilt from all of its own.
        window = (scope.days[0], scope.days[-1] + timedelta(days=1))
        rows = warehouse.build_window(name, *window, runs=scope.runs)
        windows = (window,)
    else:
        windows = tuple(ranges(scope.days))
        rows = sum(warehouse.build_window(name, lo, hi) for lo, hi in windows)
    warehouse.mark_built(name, sql_hash(model), seq, scope.describe(), rows)
    return Built(name, scope, rows, windows)
