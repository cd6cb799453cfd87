"""Accelerator efficiency: probe-measured ceilings against spec, and runs' MFU."""

from __future__ import annotations

import streamlit as st

from dashboards import charts, data
from dashboards.components import empty_state, table
from dashboards.filters import Filters

NO_PROBES = (
    "No probe data yet",
    "Run `flopledger probe` on the nodes and add its JSONL under `sources.probes`; each node's "
    "measured ceiling then shows here against its spec peak.",
)
NO_MFU = (
    "No MFU yet",
    "MFU needs telemetry and each run's model FLOPs: no telemetry yet for the runs "
    "in these filters.",
)


def _probes(f: Filters) -> None:
    st.subheader("Achieved vs spec")
    if not data.has_table("accelerator_efficiency"):
        empty_state(*NO_PROBES)
        return
    summary = data.query("efficiency_summary", f)
    if summary.empty:
        empty_state(*NO_PROBES)
        return
    st.altair_chart(charts.efficiency_bars(summary), width="stretch")
    table(summary, "accelerator_efficiency_summary")


def _mfu(f: Filters) -> None:
    st.subheader("MFU distribution")
    runs = data.query("mfu_runs", f)
    if runs.empty:
        empty_state(*NO_MFU)
        return
    st.altair_chart(charts.mfu_histogram(runs), width="stretch")
    table(runs, "mfu_runs")


def render(f: Filters) -> None:
    st.title("Accelerator efficiency")
    st.caption("Team, project and workload filters do not apply to probes (they measure nodes).")
    _probes(f)
    _mfu(f)
