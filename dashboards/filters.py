"""The filters every page shares, and how they are written in the URL (plain functions).

URL keys: `from`, `to` (YYYY-MM-DD, UTC days) and `provider`, `team`, `project`, `workload`,
`accelerator` (repeated for several values). Values the warehouse does not hold and dates
that do not parse are dropped, so a hand-edited or hostile URL shows the default view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

DIMENSIONS = {
    "provider": "Provider",
    "team": "Team",
    "project": "Project",
    "workload": "Workload class",
    "accelerator": "Accelerator type",
}


@dataclass(frozen=True)
class Filters:
    start: date
    end: date
    provider: tuple[str, ...] = ()
    team: tuple[str, ...] = ()
    project: tuple[str, ...] = ()
    workload: tuple[str, ...] = ()
    accelerator: tuple[str, ...] = ()

    def params(self) -> dict[str, Any]:
        """The named parameters every filtered query binds (sql/fragments/filter_values.sql)."""
        return {
            "start_day": self.start,
            "end_day": self.end,
            "providers": list(self.provider),
            "teams": list(self.team),
            "projects": list(self.project),
            "classes": list(self.workload),
            "accelerators": list(self.accelerator),
        }

    def chosen(self, dimension: str) -> tuple[str, ...]:
        return tuple(getattr(self, dimension))


# The cost explorer's own filters: one list per dimension with a value on every fact row
# (cost_explorer_rows), plus a label key and values of it (sql/fragments/explorer_filter_values.sql).
EXPLORER_FILTERED = (
    "provider",
    "billing_account_id",
    "project_id",
    "service_name",
    "sku_description",
    "pricing_model",
    "run_team",
    "label_team",
    "run_id",
    "accelerator_type",
    "workload_class",
    "cost_part",
    "credit_type",
)


@dataclass(frozen=True)
class ExplorerFilters:
    """What the explorer's filter widgets chose: (dimension, values) pairs and a label key."""

    chosen: tuple[tuple[str, tuple[str, ...]], ...] = ()
    label_key: str = "team"
    label_values: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, chosen: Mapping[str, Sequence[str]], label_key: str, label_values: Sequence[str] = ()
    ) -> ExplorerFilters:
        """Only known dimensions are kept (a stray key cannot become a parameter)."""
        pairs = tuple((d, tuple(chosen.get(d, ()))) for d in EXPLORER_FILTERED)
        return cls(pairs, label_key, tuple(label_values))

    def params(self) -> dict[str, Any]:
        """The named parameters the explorer's queries bind, each filter a list."""
        values = dict(self.chosen)
        bound: dict[str, Any] = {f"f_{d}": list(values.get(d, ())) for d in EXPLORER_FILTERED}
        bound["f_label"] = list(self.label_values)
        bound["label_key"] = self.label_key
        return bound

    def without(self, dimensions: Sequence[str]) -> ExplorerFilters:
        """The same filters with `dimensions` cleared."""
        kept = tuple((d, v if d not in dimensions else ()) for d, v in self.chosen)
        return ExplorerFilters(kept, self.label_key, self.label_values)


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
