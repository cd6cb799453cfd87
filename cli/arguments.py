"""What the commands share to refuse bad input before anything runs: an argument type whose
refusal is one line (argparse's `type=`; cli/main.py's parser prints it without the usage
block, exit 2), and a config's refusal printed under a command's own name, one line a problem.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date


def day(text: str) -> date:
    """A UTC day, YYYY-MM-DD (a month 13, a year 0 or a 30th of February is refused)."""
    try:
        return date.fromisoformat(text)
    except ValueError as exc:  # date's own reason (month must be in 1..12, year 0 is out of range)
        reason = "" if "isoformat" in str(exc) else f": {exc}"
        raise argparse.ArgumentTypeError(
            f"day must be YYYY-MM-DD, e.g. 2026-10-01 (got {text!r}{reason})"
        ) from None


def refuse(command: str, problems: Exception) -> int:
    """Print `problems` (a ConfigError: one line each) as `command`'s refusal; exit code 2."""
    for line in str(problems).strip().splitlines():
        print(f"flopledger {command}: {line}", file=sys.stderr)
    return 2
