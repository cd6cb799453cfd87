"""A Dagster logger that shows a person at the terminal what the run is doing, one line a step
(or, with the json log format, one JSON line: settings/log_format.py); and the JSON logger the
daemon's runs use in that format."""

import logging
import sys
import time

import dagster as dg

from flopledger.settings.log_format import JsonLines, log_format, record_line


class _ProgressHandler(logging.Handler):
    """A step's messages and its end, one line each: text for a person, or JSON lines with
    the run's job, id and step when the log format is json."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.started: dict[str, float] = {}

    def _say(self, record: logging.LogRecord, text: str) -> None:
        if log_format() == "json":
            text = record_line(record, text.strip(), "dagster")
        print(text, file=sys.stderr, flush=True)

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", None) or {}
        event = meta.get("dagster_event")
        step = meta.get("step_key") or ""
        if event is None:
            if record.levelno >= logging.INFO and step:
                self._say(record, f"      {meta.get('orig_message') or record.getMessage()}")
            return
        kind = event.event_type_value
        if kind == "STEP_START":
            self.started[step] = time.monotonic()
        elif kind in ("STEP_SUCCESS", "STEP_FAILURE"):
            seconds = time.monotonic() - self.started.pop(step, time.monotonic())
            mark = "ok" if kind == "STEP_SUCCESS" else "FAILED"
            self._say(record, f"      {mark:<6} {step} ({seconds:.1f} s)")


def _progress(_init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = logging.getLogger("flopledger.progress")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    if not logger.handlers:
        logger.addHandler(_ProgressHandler())
    return logger


progress_logger = dg.LoggerDefinition(
    _progress, description="One line per step on stderr, for the CLI."
)


def _json(_init_context: dg.InitLoggerContext) -> logging.Logger:
    logger = logging.getLogger("flopledger.json_runs")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines())
        logger.addHandler(handler)
    return logger


# The daemon's runs with FLOPLEDGER_LOG_FORMAT=json: each event of a run a JSON line on the run
# worker's stderr, with its job, run id and step (no ANSI colours), in place of Dagster's
# coloured console (pipelines/asset_jobs.py makes it the jobs' default then).
json_logger = dg.LoggerDefinition(_json, description="Each event of the run as a JSON line.")
