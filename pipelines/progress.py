"""A Dagster logger that shows a person at the terminal what the run is doing, one line a step."""

import logging
import sys
import time

import dagster as dg


class _ProgressHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.started: dict[str, float] = {}

    def emit(self, record: logging.LogRecord) -> None:
        meta = getattr(record, "dagster_meta", None) or {}
        event = meta.get("dagster_event")
        step = meta.get("step_key") or ""
        if event is None:
            if record.levelno >= logging.INFO and step:
                print(
                    f"      {meta.get('orig_message') or record.getMessage()}",
                    file=sys.stderr,
                    flush=True,
                )
            return
        kind = event.event_type_value
        if kind == "STEP_START":
            self.started[step] = time.monotonic()
        elif kind in ("STEP_SUCCESS", "STEP_FAILURE"):
            seconds = time.monotonic() - self.started.pop(step, time.monotonic())
            mark = "ok" if kind == "STEP_SUCCESS" else "FAILED"
            print(f"      {mark:<6} {step} ({seconds:.1f} s)", file=sys.stderr, flush=True)


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
