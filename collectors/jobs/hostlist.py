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


def _range_count(body: str) -> int:
    total = 0
    for item in body.split(","):
        match = _RANGE.match(item.strip())
        if not match:
            raise ValueError(f"bad hostlist range {item!r}")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if high < low:
            raise ValueError(f"bad hostlist range {item!r} (ends before it starts)")
        total += high - low + 1
    return total


def count_hosts(expr: str | None) -> int:
    """How many hosts `expr` names, without expanding it (n[0-99999999] is 1e8 hosts, not 24 GB)."""
    if not _named(expr):
        return 0
    total = 0
    for part in _split_top(str(expr)):
        hosts = 1
        for body in re.findall(r"\[([^\]]*)\]", part):
            hosts *= _range_count(body)
        total += hosts
    return total


def _named(expr: str | None) -> bool:
    return bool(expr) and str(expr).strip() not in {"None assigned", "(null)", "None"}


def expand_hostlist(expr: str | None, max_hosts: int | None = None) -> list[str]:
    """Host names of a hostlist expression; [] for empty, "None assigned" or "(null)".

    With `max_hosts`, an expression naming more hosts is a ValueError before anything is
    expanded."""
    if not _named(expr):
        return []
    if max_hosts is not None and (count := count_hosts(expr)) > max_hosts:
        raise ValueError(
            f"nodes: {count:,} hosts, more than limits.max_nodes_per_job ({max_hosts:,})"
        )
    return [host for part in _split_top(str(expr)) for host in _expand_one(part)]
