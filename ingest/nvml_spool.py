"""Spool files into `gpu_samples`, by the UTC day of the minutes."""

from collections import Counter
from datetime import date, timedelta

from flopledger.collectors.nvml.read import SpoolCarry, SpoolRead, read_spool
from flopledger.ingest.inputs import SourceInputs, source_listing
from flopledger.ingest.loading import load_minutes
from flopledger.ingest.run import IngestRun
from flopledger.ingest.source import Loaded, Source, Table


class NvmlSpool(Source):
    name = "nvml_spool"
    tables = (
        Table("gpu_samples", "One row per GPU per minute from the NVML agent's spool files."),
    )
    # A spool file is named by its first minute and may run into the next day.
    day_slack = 1

    def find_days(self, run: IngestRun) -> set[date]:
        """Spool files are named by their first minute (the listing has it: nothing is fetched);
        a file may run into the next day."""
        listing = source_listing(run.config, self.name, run.run_key)
        days = {o.day for o in listing if o.day is not None}
        return days | {d + timedelta(days=1) for d in days}

    def load(self, run: IngestRun) -> Loaded:
        if run.config.sources.nvml_spool is None:
            return self.not_configured()
        totals: Counter[str] = Counter()
        taken = SourceInputs()
        # A day at a time, so that memory holds one day of the fleet's minutes, not the window's;
        # the paths are listed once for the run and each object fetched once (ingest/inputs.py).
        limits = run.limits
        # Each file opened once: its rows of the next day wait in `carry` for that day.
        carry = SpoolCarry()
        notes: dict[str, str] = {}
        for day in run.days:
            inputs = self.inputs(run, [day])
            # Only the rows whose home day is `day`: each row and each refusal counted once.
            read = SpoolRead()
            samples, quarantined = read_spool(
                inputs.paths, day=day, stats=read, limits=limits, carry=carry
            )
            counts = load_minutes(
                run.warehouse,
                "gpu_samples",
                samples,
                quarantined,
                [day],
                read.rows_read,
                read.duplicates,
            )
            totals.update(counts)
            notes |= read.notes
            taken.add(inputs)
            run.info(f"nvml_spool {day}: {counts['rows_loaded']:,} rows")
        taken.warnings.extend(f"sources.{self.name}: {line}" for line in _ignored_lines(notes))
        return {"gpu_samples": {**totals, **taken.metadata(run)}}


def _ignored_lines(notes: dict[str, str]) -> list[str]:
    """One line per thing ignored (`SpoolRead.notes`: a newer agent's columns), with how many
    files it was ignored in and the first of them: a fleet's worth of files says it once."""
    files: dict[str, list[str]] = {}
    for uri, note in sorted(notes.items()):
        files.setdefault(note, []).append(uri)
    return [f"{len(uris):,} file(s): {note} (first: {uris[0]})" for note, uris in files.items()]
