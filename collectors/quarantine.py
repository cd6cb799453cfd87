"""Rows that could not be read: kept with the reason, never dropped silently.

Every collector returns its good rows and a list of `Quarantined` for the rest; the
pipeline writes the latter to the `quarantine` table (see models/raw/quarantine.sql).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pyarrow as pa

QUARANTINE_SCHEMA = pa.schema(
    [
        ("quarantine_id", pa.string()),
        ("source", pa.string()),
        ("file", pa.string()),
        ("line", pa.int64()),
        ("reason", pa.string()),
        ("raw", pa.string()),
    ]
)


@dataclass(frozen=True)
class Quarantined:
    """One unreadable input row: where it came from, why it was refused, its raw text."""

    source: str
    file: str
    line: int | None
    reason: str
    raw: str

    @property
    def quarantine_id(self) -> str:
        """Stable id: the same bad row read twice is one quarantine row."""
        key = f"{self.source}\x1f{self.file}\x1f{self.line}\x1f{self.raw}"
        return hashlib.sha256(key.encode()).hexdigest()[:32]


def quarantine_table(rows: list[Quarantined]) -> pa.Table:
    """The `quarantine` rows as an Arrow table."""
    return pa.Table.from_pylist(
        [
            {
                "quarantine_id": q.quarantine_id,
                "source": q.source,
                "file": q.file,
                "line": q.line,
                "reason": q.reason,
                "raw": q.raw,
            }
            for q in rows
        ],
        schema=QUARANTINE_SCHEMA,
    )
