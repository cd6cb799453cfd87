"""Accelerator efficiency: probe-measured ceilings against spec, and runs' MFU."""

from __future__ import annotations

import streamlit as st

from flopledger.dashboards import charts, data
from flopledger.dashboards.components import (
    count_column,
    definition_link,
    empty_state,
    percent_column,
    table,
)
from flopledger.dashboards.filters import Filters

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
    table(
        summary,
        "accelerator_efficiency_summary",
        {
            "nodes": count_column("Nodes"),
            "results": count_column("Results"),
            "failed_results": count_column("Failed results"),
            "best_achieved_tflops": st.column_config.NumberColumn("Best TFLOP/s", format="%,.1f"),
            "median_node_tflops": st.column_config.NumberColumn(
                "Median node TFLOP/s", format="%,.1f"
            ),
            "spec_tflops": st.column_config.NumberColumn("Spec TFLOP/s", format="%,.1f"),
            "median_efficiency_pct": percent_column("Median efficiency"),
            "nodes_with_ceiling_drop": count_column("Nodes with a ceiling drop"),
        },
    )


def _mfu(f: Filters) -> None:
    st.subheader("MFU distribution")
    runs = data.named("mfu_runs", f)
    if runs.empty:
        empty_state(*NO_MFU)
        return
    st.altair_chart(charts.mfu_histogram(runs), width="stretch")
    st.caption(
        f"Runs without tokens have no model FLOPs and so no {definition_link('mfu')}; they are "
        "not shown."
    )
    table(
        runs,
        "mfu_runs",
        {
            "mfu_spec_pct": percent_column("MFU vs spec"),
            "mfu_measured_pct": percent_column("MFU vs measured peak"),
        },
    )


def render(f: Filters) -> None:
    st.title("Accelerator efficiency")
    st.caption("Team, project and workload filters do not apply to probes (they measure nodes).")
    _probes(f)
    _mfu(f)
