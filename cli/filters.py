"""The parameters of a figure's query when the CLI reads all of the warehouse.

A figure is computed by one named query (figures/__init__.py names it) that the pages run with
the sidebar's filters; the CLI binds the same query with no day bound and no filter.
"""

from __future__ import annotations

from typing import Any

from flopledger.models import QUERIES

# The filters a figure's query may take (the pages bind the sidebar's), and their days.
FILTER_LISTS = ("providers", "teams", "projects", "classes", "accelerators")
DAYS = ("start_day", "end_day")


def unfiltered(name: str, **params: Any) -> dict[str, Any]:
    """The parameters of the named query over all of the warehouse: no day bound (null), no
    filter (empty lists), then `params`."""
    used = QUERIES.params(name)
    return {
        **{k: None for k in DAYS if k in used},
        **{k: [] for k in FILTER_LISTS if k in used},
        **params,
    }
