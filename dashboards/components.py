"""Small page parts: money and percent text, tables with a CSV download, empty states."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.filters import DIMENSIONS, Filters

NO_TELEMETRY = "no telemetry yet"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def money(value: Any) -> str:
    """USD to the cent, e.g. $15,671.17."""
    if _missing(value):
        return "—"
    sign = "-" if float(value) < 0 else ""
    return f"{sign}${abs(float(value)):,.2f}"


def percent(fraction: Any) -> str:
    return "—" if _missing(fraction) else f"{float(fraction) * 100:.1f}%"


def number(value: Any, unit: str = "", digits: int = 1) -> str:
    return "—" if _missing(value) else f"{float(value):,.{digits}f}{unit}"


def telemetry(value: Any, unit: str, digits: int = 1) -> str:
    """A telemetry figure, or the honest 'no telemetry yet' (never a zero)."""
    return NO_TELEMETRY if _missing(value) else number(value, unit, digits)


def table(frame: pd.DataFrame, name: str, config: dict[str, Any] | None = None) -> None:
    """A table with a CSV download of exactly what it shows."""
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config)
    st.download_button(
        f"Download {name}.csv", frame.to_csv(index=False).encode(), file_name=f"{name}.csv",
        mime="text/csv", key=f"csv_{name}",
    )


def usd_column(label: str) -> Any:
    return st.column_config.NumberColumn(label, format="dollar")


def empty_state(title: str, detail: str) -> None:
    st.info(f"**{title}**  \n{detail}")


def scope_note(filters: Filters, applies: Iterable[str], what: str) -> None:
    """Say which chosen filters a section cannot apply (its table has no such column)."""
    ignored = [DIMENSIONS[d] for d in DIMENSIONS if d not in set(applies) and filters.chosen(d)]
    if ignored:
        st.caption(f"{what} is not split by {', '.join(ignored).lower()}: those filters do not apply here.")
