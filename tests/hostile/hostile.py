"""The hostile corpus's one idea: a case is an input and what must happen to it.

Each source's cases are written into one file (one case per line, so line n is case n) and
read once per module; each case is then checked on its own line: LOADED, DUPLICATE, or
QUARANTINED with a reason that must contain the case's words.
"""

from __future__ import annotations

import json
import resource
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

LOADED = "loaded"
DUPLICATE = "duplicate"
# How far a read of hostile input may raise the process's peak memory (its high-water mark,
# which a read within what the process has held before does not move at all): a bomb
# expanded, e.g. the hostlist n[0-99999999] written out, would take 12 GiB (1,000,000 host
# names alone take 122 MiB). A bound on the work done, where a bound on the time taken
# would depend on the machine.
PEAK_RISE_BOUND = 256 * 2**20


@dataclass(frozen=True)
class Case:
    """One hostile input: `line` (a record, or str/bytes written as they are) and its outcome:
    LOADED, DUPLICATE, or the words the quarantine reason must contain."""

    name: str
    line: Any
    expect: str

    def __str__(self) -> str:
        return self.name


def _peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux counts KiB


def bounded(read: Callable[[], T]) -> T:
    """`read()`'s result, once it has been seen to raise the peak by at most PEAK_RISE_BOUND."""
    before = _peak_bytes()
    result = read()
    rise = _peak_bytes() - before
    assert rise <= PEAK_RISE_BOUND, f"the read raised the peak memory by {rise:,} bytes"
    return result


def write_lines(path: Path, cases: list[Case]) -> Path:
    """Case n on line n, bytes as given (invalid UTF-8 stays invalid)."""
    out = bytearray()
    for case in cases:
        line = case.line
        if isinstance(line, bytes):
            out += line
        elif isinstance(line, str):
            out += line.encode()
        else:
            out += json.dumps(line, default=str).encode()
        out += b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(out))
    return path


def check(case: Case, loaded: set[int], reasons: dict[int, str], line: int, dupes=()) -> None:
    """`line`'s outcome is the case's: loaded, a duplicate, or quarantined with its words."""
    if case.expect == LOADED:
        assert line in loaded, f"{case.name}: not loaded ({reasons.get(line)})"
        assert line not in reasons
    elif case.expect == DUPLICATE:
        assert line in dupes, f"{case.name}: not reported as a duplicate"
    else:
        assert line in reasons, f"{case.name}: not quarantined (loaded: {line in loaded})"
        assert case.expect in reasons[line], f"{case.name}: reason {reasons[line]!r}"
        assert line not in loaded
