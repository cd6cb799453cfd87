"""How flopledger writes its logs: text for a person (the default), or JSON lines for a log
pipeline: `flopledger --log-format json COMMAND` or `FLOPLEDGER_LOG_FORMAT=json`, for the CLI,
the agent and the Dagster runs (`flopledger run`'s and the daemon's).

A JSON line is one object: `time` (UTC, ISO 8601), `level`, `job`, `run_id`, `step` (the
Dagster job, run and step, null outside a run), `source` (the logger the line came from:
`flopledger.collectors.nvml.agent`, `dagster`, `flopledger.run`) and `message`; `error` with
the traceback when there is one. Stdlib only: the agent's slim install uses it too.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any

LOG_FORMAT_ENV = "FLOPLEDGER_LOG_FORMAT"
FORMATS = ("text", "json")


def log_format() -> str:
    """`json` when FLOPLEDGER_LOG_FORMAT says so, else `text`."""
    return "json" if os.environ.get(LOG_FORMAT_ENV, "").strip().lower() == "json" else "text"


def json_line(
    message: str,
    level: str = "INFO",
    source: str = "flopledger",
    when: float | None = None,
    **context: Any,
) -> str:
    """One log object as a line (`context`: job, run_id, step; error)."""
    moment = datetime.fromtimestamp(when, UTC) if when is not None else datetime.now(UTC)
    line = {
        "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "level": level,
        "job": context.pop("job", None),
        "run_id": context.pop("run_id", None),
        "step": context.pop("step", None),
        "source": source,
        "message": message,
        **context,
    }
    return json.dumps(line, default=str)


def record_line(
    record: logging.LogRecord, message: str, source: str | None = None, **extra: Any
) -> str:
    """A log record as `json_line`, with `message` (and `source`, else the logger's name):
    Dagster's records carry their job, run and step."""
    meta = getattr(record, "dagster_meta", None) or {}
    return json_line(
        message,
        record.levelname,
        source or record.name,
        record.created,
        job=meta.get("job_name"),
        run_id=meta.get("run_id"),
        step=meta.get("step_key"),
        **extra,
    )


class JsonLines(logging.Formatter):
    """A log record as `json_line` (`record_line`), its traceback as `error`."""

    def format(self, record: logging.LogRecord) -> str:
        meta = getattr(record, "dagster_meta", None) or {}
        extra: dict[str, Any] = {}
        if record.exc_info:
            extra["error"] = self.formatException(record.exc_info)
        return record_line(record, str(meta.get("orig_message") or record.getMessage()), **extra)


def say(message: str, source: str = "flopledger.run") -> None:
    """A progress line on stderr in the chosen format."""
    text = json_line(message.strip(), source=source) if log_format() == "json" else message
    print(text, file=sys.stderr, flush=True)
