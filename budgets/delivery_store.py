"""Where alert deliveries are recorded: a small SQLite file of its own, beside Dagster's.

The notifier must never wait on the warehouse's writers (issue 39): it reads the alerts from
the published snapshot and records what it posted here, `<dagster_home>/alert_deliveries.sqlite`,
never in the warehouse. One row per (alert, channel): attempts, when it was delivered, when
to try again and the last error (never the URL). The file is in WAL mode, so a reader (the
alerts asset copying the record into the warehouse, `flopledger alerts`) never waits on a
notifier; notifiers take turns one pair at a time (`claim`: BEGIN IMMEDIATE, read the pair,
post, write, COMMIT), so two of them (the daemon's sensor and a second daemon, or a test)
never post one pair twice.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from flopledger.settings import Config

FILE_NAME = "alert_deliveries.sqlite"
BUSY_S = 30.0  # how long a claim waits for another notifier's one post (its deadline and more)
FIELDS = ("attempts", "delivered_at", "next_attempt_at", "last_error")
DDL = (
    "CREATE TABLE IF NOT EXISTS deliveries ("
    " alert_id TEXT NOT NULL, channel TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,"
    " delivered_at TEXT, next_attempt_at TEXT, last_error TEXT,"
    " PRIMARY KEY (alert_id, channel))"
)
SELECT_PAIR = (
    "SELECT attempts, delivered_at, next_attempt_at, last_error FROM deliveries"
    " WHERE alert_id = ? AND channel = ?"
)
SELECT_ALERTS = (  # the ids as one JSON array: no bound on how many
    "SELECT alert_id, channel, attempts, delivered_at, next_attempt_at, last_error"
    " FROM deliveries WHERE alert_id IN (SELECT value FROM json_each(?))"
)
WRITE_PAIR = (
    "INSERT OR REPLACE INTO deliveries"
    " (alert_id, channel, attempts, delivered_at, next_attempt_at, last_error)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
State = dict[str, dict[str, dict[str, Any]]]  # alert_id -> channel -> the record's fields


class DeliveryStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @classmethod
    def of(cls, config: Config) -> DeliveryStore:
        """The deployment's store: in its dagster_home (which load_config always resolves)."""
        if config.dagster_home is None:
            raise ValueError("config.dagster_home is unset: read the config with load_config")
        return cls(Path(config.dagster_home) / FILE_NAME)

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=BUSY_S, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute(DDL)
        return con

    def states(self, alert_ids: Iterable[str]) -> State:
        """The recorded deliveries of these alerts (none for an alert never tried, or when the
        file does not exist yet: reading never creates it)."""
        wanted = sorted(set(alert_ids))
        if not wanted or not self.path.exists():
            return {}
        state: State = {}
        # Read-only: a reader (`flopledger alerts`, the alerts asset) never makes or changes it.
        with closing(
            sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_S)
        ) as con:
            rows = con.execute(SELECT_ALERTS, (json.dumps(wanted),)).fetchall()
            for alert_id, channel, *values in rows:
                state.setdefault(alert_id, {})[channel] = dict(zip(FIELDS, values, strict=True))
        return state

    @contextmanager
    def claim(self, alert_id: str, channel: str) -> Iterator[dict[str, Any]]:
        """One pair's record, held against every other notifier until the block ends, then
        written as the block left it (nothing is written when the block raises)."""
        with closing(self._connect()) as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                row = con.execute(SELECT_PAIR, (alert_id, channel)).fetchone()
                record: dict[str, Any] = dict(zip(FIELDS, row, strict=True)) if row else {}
                before = dict(record)
                yield record
                if record != before:
                    con.execute(WRITE_PAIR, (alert_id, channel, *(record.get(f) for f in FIELDS)))
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
