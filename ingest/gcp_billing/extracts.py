"""Which billing extracts a run reads: the new and rewritten ones, never the year's.

A billing run takes every row not seen before, whatever its day, so before this each scheduled
run read every extract of the history (a year: a thousand files) to find the few new rows. Each
extract's fingerprint and usage days are kept in bookkeeping.input_files (ingest/file_marks.py):

- a run kept to no days (the scheduled `billing_daily`, `flopledger run`) reads the extracts
  not read whole before, as they are now; one whose every row it took (none quarantined) is
  marked read whole, and is not read again until it is rewritten;
- a run kept to its days (`--from/--to`) reads the extracts that may hold one of them, by
  their marked days, scanning the start times only of those not marked (collectors/
  gcp_billing/days.py); a file some row of which has no plausible start is read by every run.

A row quarantined stays in quarantine with its reason, and its file is read by every run until
it is rewritten (the row may read as plain under a later clock's plausible window). Rows taken
before from an extract that is then rewritten are kept (row ids are never deleted by a read),
as they always were.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date

from flopledger.collectors.gcp_billing.days import ExtractDays, could_hold, extract_days
from flopledger.collectors.inputs import InputObject
from flopledger.collectors.limits import Limits
from flopledger.collectors.quarantine import Quarantined
from flopledger.ingest import file_marks
from flopledger.ingest.file_marks import Mark
from flopledger.ingest.inputs import SourceInputs, fetch_inputs, pattern_listing
from flopledger.settings import Config
from flopledger.warehouse import Warehouse

SOURCE = "gcp_billing"
KEY = "sources.gcp_billing"


@dataclass
class Extracts:
    """The extracts a run reads (`inputs`, in listing order) and what is known of every extract
    listed before the read (`marks`: as marked, for those unchanged since; as scanned now)."""

    inputs: SourceInputs
    listed: list[InputObject]
    marks: dict[str, Mark]
    kept_to_days: bool
    stored: dict[str, Mark]  # the marks as the warehouse had them

    def note(self) -> str | None:
        """The run's line on the extracts it leaves unread, if any."""
        left = len(self.listed) - len(self.inputs.paths)
        if left <= 0:
            return None
        why = (
            "hold no row of the run's days"
            if self.kept_to_days
            else "were read whole before and are unchanged"
        )
        return f"gcp_billing: {left} of {len(self.listed)} extracts {why}: not read"


def _patterns(config: Config) -> list[str]:
    source = config.sources.gcp_billing
    return list(source.paths) if source is not None else []


def choose(
    config: Config,
    warehouse: Warehouse,
    run_key: str | None,
    days: Collection[date] | None,
    limits: Limits,
) -> Extracts:
    """The extracts a run reads: for `days`, those that may hold one of them; for no days,
    those not read whole before."""
    listing = pattern_listing(config, _patterns(config), run_key)
    listed = listing.objects
    known = file_marks.seen(warehouse, SOURCE)
    marks = {o.uri: known[o.uri] for o in listed if file_marks.same(o, known)}
    if days is None:
        chosen = [o for o in listed if not (o.uri in marks and marks[o.uri].whole)]
        return Extracts(fetch_inputs(config, KEY, listing, chosen), listed, marks, False, known)
    unknown = [o for o in listed if o.uri not in marks]
    scanned = fetch_inputs(config, KEY, listing, unknown)
    local = {str(p): p for p in scanned.paths}  # a vanished object has none (a warning says)
    for o in unknown:
        if o.uri in local:
            found = extract_days(local[o.uri], limits)
            marks[o.uri] = Mark(o.fingerprint, found.days, unsure=found.unsure)
    wanted = set(days)
    chosen = [
        o
        for o in listed
        if o.uri in marks
        and could_hold(ExtractDays(marks[o.uri].days, marks[o.uri].unsure), wanted)
    ]
    inputs = fetch_inputs(config, KEY, listing, chosen)
    inputs.downloaded += scanned.downloaded
    return Extracts(inputs, listed, marks, True, known)


def remember(
    warehouse: Warehouse, extracts: Extracts, quarantined: list[Quarantined], limits: Limits
) -> None:
    """After the read: what each extract listed holds, and which were read whole (a run kept to
    no days, no row quarantined); extracts no longer listed are forgotten."""
    marks = dict(extracts.marks)
    if not extracts.kept_to_days:
        refused = {q.file for q in quarantined}
        fingerprints = {o.uri: o.fingerprint for o in extracts.listed}
        for path in extracts.inputs.paths:
            uri = str(path)
            found = marks.get(uri)
            if found is None:  # read for the first time, or rewritten: its days scanned
                scan = extract_days(path, limits)
                found = Mark(fingerprints[uri], scan.days, unsure=scan.unsure)
            whole = uri not in refused and not found.unsure
            marks[uri] = Mark(found.fingerprint, found.days, whole, found.unsure)
    if marks != extracts.stored:
        file_marks.store(warehouse, SOURCE, marks)


def held_days(
    config: Config, warehouse: Warehouse, run_key: str | None, limits: Limits
) -> set[date]:
    """The plausible usage days the extracts hold: marked ones' as marked, the others scanned
    (`flopledger run` with no window finds its days so, without reading the year's files)."""
    listing = pattern_listing(config, _patterns(config), run_key)
    known = file_marks.seen(warehouse, SOURCE)
    days = set[date]()
    unknown = []
    for o in listing.objects:
        if file_marks.same(o, known):
            days |= known[o.uri].days
        else:
            unknown.append(o)
    for path in fetch_inputs(config, KEY, listing, unknown).paths:
        days |= extract_days(path, limits).days
    return days
