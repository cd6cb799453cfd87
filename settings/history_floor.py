"""The first day Dagster's partitions offer, moved earlier by what runs find.

Dagster's own tools (the UI, `dagster job backfill`, the daemon) offer the days from the
config's `history_start` (else 90 days before today: pipelines/definitions.py). A run that
ingests older days (`flopledger run` whose inputs hold them, or `--from` an earlier day)
records the oldest in `<dagster_home>/history_floor` (one ISO date), and the partitions start
there from then on: those days can be backfilled again from the UI without editing the config.
The daemon loads its code afresh every 60 s; the webserver on its Reload button or restart.
It only ever moves earlier; delete the file to go back to `history_start`.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

FILE_NAME = "history_floor"


def read_floor(dagster_home: str | Path | None) -> date | None:
    """The recorded first day; None when none is (or the file holds no date: said nowhere,
    as the partitions then start at `history_start`, the default)."""
    if dagster_home is None:
        return None
    try:
        return date.fromisoformat((Path(dagster_home) / FILE_NAME).read_text().strip())
    except (OSError, ValueError):
        return None


def lower_floor(dagster_home: str | Path, day: date) -> bool:
    """Record `day` as the first day when it is earlier than the one recorded (or none is);
    True when it wrote. The file is replaced whole (a reader never sees half of it)."""
    current = read_floor(dagster_home)
    if current is not None and current <= day:
        return False
    path = Path(dagster_home) / FILE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{FILE_NAME}.{os.getpid()}")
    temporary.write_text(day.isoformat() + "\n")
    os.replace(temporary, path)
    return True
