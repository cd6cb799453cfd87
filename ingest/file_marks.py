"""What each input file held when its source last read it: a fingerprint and the UTC days of
its rows (bookkeeping.input_files).

A source whose files' names bound no day, or whose late files may hold any day (managed
inference's gateway logs and provider pages), would otherwise read every file of the history on
every run to find what changed. With its marks it reads the files that are new or rewritten since
(`changed`), learns the days they hold (now and before), and reads besides only the unchanged
files that hold one of those days or of the run's window (`holding`): each day it replaces is
rebuilt from every file that holds it, as a full read would. The billing extracts (late rows
of any day, in the export day's files) go the same way: ingest/gcp_billing/extracts.py. A
warehouse without marks (a new one, or one built before them) reads every file once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

from flopledger import models
from flopledger.collectors.inputs import InputObject
from flopledger.warehouse import Warehouse


@dataclass(frozen=True)
class Mark:
    fingerprint: str
    days: frozenset[date]
    # Billing's (ingest/gcp_billing/extracts.py): every row taken by a run kept to no days, and
    # none quarantined; some row's day cannot be told without reading the file.
    whole: bool = False
    unsure: bool = False


def seen(warehouse: Warehouse, source: str) -> dict[str, Mark]:
    """Per file (uri): what it held when `source` last read it."""
    found = warehouse.query(models.query_sql("input_files_seen"), {"source": source})
    marks = {}
    for text in found["entry"].to_pylist():
        entry = json.loads(text)
        days = frozenset(date.fromisoformat(d) for d in entry["days"])
        whole, unsure = bool(entry.get("whole")), bool(entry.get("unsure"))
        marks[entry["uri"]] = Mark(entry["fingerprint"], days, whole, unsure)
    return marks


def same(o: InputObject, marks: dict[str, Mark]) -> bool:
    """Whether `o` is as it was when last read."""
    return o.uri in marks and marks[o.uri].fingerprint == o.fingerprint


def changed(listed: list[InputObject], marks: dict[str, Mark]) -> list[InputObject]:
    """The files new or rewritten since they were last read."""
    return [o for o in listed if not same(o, marks)]


def holding(
    listed: list[InputObject], marks: dict[str, Mark], days: set[date]
) -> list[InputObject]:
    """The files, read before and unchanged, that held one of `days`."""
    return [o for o in listed if same(o, marks) and marks[o.uri].days & days]


def store(warehouse: Warehouse, source: str, marks: dict[str, Mark]) -> None:
    """Record `marks` as all that `source`'s files held (the files no longer listed forgotten)."""
    entries = [
        json.dumps(
            {
                "uri": uri,
                "fingerprint": m.fingerprint,
                "days": sorted(map(str, m.days)),
                **{k: True for k in ("whole", "unsure") if getattr(m, k)},
            },
            sort_keys=True,
        )
        for uri, m in sorted(marks.items())
    ]
    warehouse.execute(models.query_sql("input_files_forget"), {"source": source})
    if entries:
        warehouse.execute(
            models.query_sql("input_files_store"), {"source": source, "entries": entries}
        )
