"""Small page parts: money and percent text, tables with a CSV download, empty states."""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import pandas as pd
import streamlit as st

from flopledger.cells import safe_text
from flopledger.dashboards.filters import DIMENSIONS, Filters
from flopledger.figures import figure

NO_TELEMETRY = "no telemetry yet"
# Internal values shown in words (Kubecost's __unallocated__ is a value, never a label).
SHOWN_AS = {
    "__unallocated__": "(no team)",
    "__idle__": "(unallocated idle, not spread)",
    "__shared__": "(shared cost, not spread)",
    "(none)": "(none)",
}


def display_value(value: Any) -> str:
    """A filter option or group as a person reads it: no internal markers."""
    return "(none)" if _missing(value) else SHOWN_AS.get(str(value), str(value))


def definition_link(key: str) -> str:
    """A markdown link to a figure's definition on the Glossary page (docs/glossary.md)."""
    f = figure(key)
    return f"[{f.name.lower()}](/glossary#{f.anchor})"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def money(value: Any) -> str:
    """USD to the cent, e.g. $15,671.17 (rounded for display only; a Decimal stays exact)."""
    if _missing(value):
        return "—"
    amount = value if isinstance(value, Decimal) else float(value)
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,.2f}"


def percent(fraction: Any) -> str:
    return "—" if _missing(fraction) else f"{float(fraction) * 100:.1f}%"


def number(value: Any, unit: str = "", digits: int = 1) -> str:
    return "—" if _missing(value) else f"{float(value):,.{digits}f}{unit}"


def duration(seconds: Any) -> str:
    """Seconds as a person reads a wait: '45 s', '3 min 5 s', '1 h 18 min', '2 d 3 h'."""
    if _missing(seconds):
        return "—"
    s = int(round(float(seconds)))
    sign, s = ("-", -s) if s < 0 else ("", s)
    days, rest = divmod(s, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        text = f"{days} d {hours} h" if hours else f"{days} d"
    elif hours:
        text = f"{hours} h {minutes} min" if minutes else f"{hours} h"
    elif minutes:
        text = f"{minutes} min {secs} s" if secs else f"{minutes} min"
    else:
        text = f"{secs} s"
    return sign + text


def count_column(label: str) -> Any:
    """Whole numbers with thousands separators (tokens, runs, results)."""
    return st.column_config.NumberColumn(label, format="%,d")


def percent_column(label: str) -> Any:
    """A column holding percentages (0-100), e.g. 41.6%."""
    return st.column_config.NumberColumn(label, format="%.1f%%")


def telemetry(value: Any, unit: str, digits: int = 1) -> str:
    """A telemetry figure, or the honest 'no telemetry yet' (never a zero)."""
    return NO_TELEMETRY if _missing(value) else number(value, unit, digits)


def _plain(value: Any) -> Any:
    """A Decimal in positional notation with all its digits (0.000000002, never 2E-9); a text
    formula-safe (cells/: `=HYPERLINK(...)` is written `'=HYPERLINK(...)`, shown, never run)."""
    if isinstance(value, Decimal):
        return format(value, "f")
    return safe_text(value) if isinstance(value, str) else value


def csv_text(frame: pd.DataFrame) -> str:
    """The CSV of a table: money (Decimal) with every digit it has, as the warehouse holds it;
    text formula-safe (a team a spreadsheet would run as a formula is shown as text)."""
    text_columns = [
        c
        for c in frame.columns
        if frame[c].dtype == object or isinstance(frame[c].dtype, pd.StringDtype)
    ]
    return frame.assign(**{c: frame[c].map(_plain) for c in text_columns}).to_csv(index=False)


def table(frame: pd.DataFrame, name: str, config: dict[str, Any] | None = None) -> None:
    """A table with a CSV download of exactly what it shows: money columns hold Decimals, so
    the CSV carries every digit; the column config rounds them on screen only."""
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config)
    st.download_button(
        f"Download {name}.csv",
        csv_text(frame).encode(),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"csv_{name}",
    )


def one_provider(frame: pd.DataFrame, providers: Iterable[str]) -> pd.DataFrame:
    """The frame without its provider column when the warehouse holds one provider only: such a
    page looks as it did before other clouds (no column saying 'gcp' on every row)."""
    if len(list(providers)) > 1 or "provider" not in frame.columns:
        return frame
    return frame.drop(columns="provider")


def usd_column(label: str) -> Any:
    return st.column_config.NumberColumn(label, format="dollar")


def empty_state(title: str, detail: str) -> None:
    st.info(f"**{title}**  \n{detail}")


def scope_note(filters: Filters, applies: Iterable[str], what: str) -> None:
    """Say which chosen filters a section cannot apply (its table has no such column)."""
    ignored = [DIMENSIONS[d] for d in DIMENSIONS if d not in set(applies) and filters.chosen(d)]
    if ignored:
        st.caption(
            f"{what} is not split by {', '.join(ignored).lower()}: those filters do not apply here."
        )
