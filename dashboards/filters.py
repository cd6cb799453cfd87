"""The filters every page shares, and how they are written in the URL (plain functions).

URL keys: `from`, `to` (YYYY-MM-DD, UTC days) and `team`, `project`, `workload`,
`accelerator` (repeated for several values). Values the warehouse does not hold and dates
that do not parse are dropped, so a hand-edited or hostile URL shows the default view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

DIMENSIONS = {
    "team": "Team",
    "project": "Project",
    "workload": "Workload class",
    "accelerator": "Accelerator type",
}


@dataclass(frozen=True)
class Filters:
    start: date
    end: date
    team: tuple[str, ...] = ()
    project: tuple[str, ...] = ()
    workload: tuple[str, ...] = ()
    accelerator: tuple[str, ...] = ()

    def params(self) -> dict[str, Any]:
        """The named parameters every filtered query binds (sql/fragments/filter_values.sql)."""
        return {
            "start_day": self.start,
            "end_day": self.end,
            "teams": list(self.team),
            "projects": list(self.project),
            "classes": list(self.workload),
            "accelerators": list(self.accelerator),
        }

    def chosen(self, dimension: str) -> tuple[str, ...]:
        return tuple(getattr(self, dimension))


def parse_day(text: str | None, lo: date, hi: date, fallback: date) -> date:
    """A URL day clamped into [lo, hi]; the fallback when it does not parse."""
    try:
        day = date.fromisoformat(str(text))
    except ValueError:
        return fallback
    return min(max(day, lo), hi)


def from_url(
    url: Mapping[str, Sequence[str]], options: Mapping[str, Sequence[str]], lo: date, hi: date
) -> Filters:
    """Filters from URL values (each key a list), keeping only known values."""
    start = parse_day(_first(url.get("from")), lo, hi, lo)
    end = parse_day(_first(url.get("to")), lo, hi, hi)
    if start > end:
        start, end = lo, hi
    chosen = {
        dim: tuple(v for v in url.get(dim, ()) if v in set(options.get(dim, ())))
        for dim in DIMENSIONS
    }
    return Filters(start, end, **chosen)


def to_url(filters: Filters, lo: date, hi: date) -> dict[str, list[str]]:
    """The URL values of non-default filters."""
    url: dict[str, list[str]] = {}
    if filters.start != lo:
        url["from"] = [filters.start.isoformat()]
    if filters.end != hi:
        url["to"] = [filters.end.isoformat()]
    for dim in DIMENSIONS:
        if filters.chosen(dim):
            url[dim] = list(filters.chosen(dim))
    return url


def _first(values: Sequence[str] | None) -> str | None:
    return values[0] if values else None
