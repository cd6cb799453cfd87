"""Slurm hostlist expressions ("gpu[01-03,07],cpu1") to host names, as `scontrol show hostnames` does."""

from __future__ import annotations

import re

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def _split_top(expr: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    parts, depth, current = [], 0, ""
    for char in expr:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def _expand_ranges(body: str) -> list[str]:
    values: list[str] = []
    for item in body.split(","):
        match = _RANGE.match(item.strip())
        if not match:
            raise ValueError(f"bad hostlist range {item!r}")
        low, high = match.group(1), match.group(2) or match.group(1)
        width = len(low)
        values.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1))
    return values


def _expand_one(part: str) -> list[str]:
    match = re.search(r"\[([^\]]*)\]", part)
    if not match:
        return [part]
    prefix, suffix = part[: match.start()], part[match.end() :]
    return [
        host
        for value in _expand_ranges(match.group(1))
        for host in _expand_one(prefix + value + suffix)
    ]


def expand_hostlist(expr: str | None) -> list[str]:
    """Host names of a hostlist expression; [] for empty, "None assigned" or "(null)"."""
    if not expr or expr.strip() in {"None assigned", "(null)", "None"}:
        return []
    return [host for part in _split_top(expr) for host in _expand_one(part)]
