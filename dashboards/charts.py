"""Charts as plain functions of data frames (Altair), so tests can build and inspect them.

Every axis says its unit; money is USD. Frames carry money as Decimal; a chart converts its
money columns to float for drawing (`_drawn`), and nowhere else does money become a float.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from flopledger.figures import figure

USD = "USD"
WEEKDAYS = {1: "Mon", 2: "Tue", 3: "Wed", 4: "Thu", 5: "Fri", 6: "Sat", 7: "Sun"}


def _drawn(frame: pd.DataFrame, *money: str) -> pd.DataFrame:
    """A copy whose money columns are floats: Altair writes its data as JSON numbers."""
    return frame.assign(**{column: pd.to_numeric(frame[column]) for column in money})


def spend_trend(frame: pd.DataFrame) -> alt.Chart:
    """Effective spend per UTC day, stacked by category. Columns: day, category, effective_cost."""
    return (
        alt.Chart(_drawn(frame, "effective_cost"), title="Spend per day")
        .mark_bar()
        .encode(
            x=alt.X("day:T", title="Day (UTC)", timeUnit="yearmonthdate"),
            y=alt.Y(
                "sum(effective_cost):Q", title="Effective cost (USD)", axis=alt.Axis(format="$,.0f")
            ),
            color=alt.Color("category:N", title="Category"),
            tooltip=[
                alt.Tooltip("day:T", title="Day"),
                "category:N",
                alt.Tooltip("effective_cost:Q", title="Effective cost (USD)", format="$,.2f"),
            ],
        )
    )


def cost_bars(
    frame: pd.DataFrame, label: str, label_title: str, title: str, value: str = "effective_cost"
) -> alt.Chart:
    """Horizontal bars of the money figure `value` (a figure key) per `label`, largest first."""
    named = f"{figure(value).name} (USD)"
    return (
        alt.Chart(_drawn(frame, value), title=title)
        .mark_bar()
        .encode(
            y=alt.Y(f"{label}:N", title=label_title, sort="-x"),
            x=alt.X(f"{value}:Q", title=named, axis=alt.Axis(format="$,.0f")),
            tooltip=[f"{label}:N", alt.Tooltip(f"{value}:Q", title=named, format="$,.2f")],
        )
    )


def run_hours(frame: pd.DataFrame) -> alt.Chart:
    """One run's allocated cost per UTC hour, stacked by resource. Columns: hour, resource_name, run_cost."""
    shown = _drawn(frame, "run_cost")
    return (
        alt.Chart(shown, title="Cost by resource and hour")
        .mark_bar()
        .encode(
            x=alt.X("hour:T", title="Hour (UTC)"),
            y=alt.Y("sum(run_cost):Q", title="Cost of runs (USD)", axis=alt.Axis(format="$,.2f")),
            color=alt.Color("resource_name:N", title="Resource"),
            tooltip=[
                alt.Tooltip("hour:T", format="%Y-%m-%d %H:00"),
                "resource_name:N",
                alt.Tooltip("run_cost:Q", title="Cost of runs (USD)", format="$,.2f"),
            ],
        )
    )


def tokens_bars(frame: pd.DataFrame, dimension_title: str) -> alt.Chart:
    """USD per million tokens per dimension value. Columns: dimension_value, cost_per_million_tokens."""
    shown = _drawn(frame, "cost_per_million_tokens")
    title = f"Cost per million tokens by {dimension_title.lower()}"
    return (
        alt.Chart(shown, title=title)
        .mark_bar()
        .encode(
            y=alt.Y("dimension_value:N", title=dimension_title, sort="-x"),
            x=alt.X(
                "cost_per_million_tokens:Q",
                title="Cost per million tokens (USD)",
                axis=alt.Axis(format="$,.2f"),
            ),
            tooltip=[
                alt.Tooltip("dimension_value:N", title=dimension_title),
                alt.Tooltip(
                    "cost_per_million_tokens:Q",
                    title="Cost per million tokens (USD)",
                    format="$,.4f",
                ),
            ],
        )
    )


def tokens_trend(frame: pd.DataFrame, dimension_title: str) -> alt.Chart:
    """USD per million tokens per UTC day. Columns: day, dimension_value, cost_per_million_tokens."""
    shown = _drawn(frame, "cost_per_million_tokens")
    return (
        alt.Chart(shown, title="Cost per million tokens over time")
        .mark_line(point=True)
        .encode(
            x=alt.X("day:T", title="Day of run start (UTC)", timeUnit="yearmonthdate"),
            y=alt.Y(
                "cost_per_million_tokens:Q",
                title="Cost per million tokens (USD)",
                axis=alt.Axis(format="$,.2f"),
            ),
            color=alt.Color("dimension_value:N", title=dimension_title),
            tooltip=[
                alt.Tooltip("day:T", title="Day"),
                alt.Tooltip("dimension_value:N", title=dimension_title),
                alt.Tooltip(
                    "cost_per_million_tokens:Q",
                    title="Cost per million tokens (USD)",
                    format="$,.4f",
                ),
            ],
        )
    )


def idle_split(frame: pd.DataFrame, dimension_title: str) -> alt.Chart:
    """Cost split into busy, allocated idle and unallocated idle. Columns: dimension_value, kind, usd."""
    shown = _drawn(frame, "usd")
    return (
        alt.Chart(shown, title=f"Idle cost by {dimension_title.lower()}")
        .mark_bar()
        .encode(
            y=alt.Y("dimension_value:N", title=dimension_title),
            x=alt.X(
                "sum(usd):Q", title="Accelerator resource cost (USD)", axis=alt.Axis(format="$,.0f")
            ),
            color=alt.Color("kind:N", title="Capacity"),
            tooltip=[
                alt.Tooltip("dimension_value:N", title=dimension_title),
                "kind:N",
                alt.Tooltip("usd:Q", title="Accelerator resource cost (USD)", format="$,.2f"),
            ],
        )
    )


def idle_heatmap(frame: pd.DataFrame) -> alt.Chart:
    """Unallocated idle share by weekday and UTC hour. Columns: weekday (1-7), hour_of_day,
    unallocated_idle_share_of_hours, unallocated_idle_cost."""
    shown = _drawn(frame, "unallocated_idle_cost").assign(day_name=frame["weekday"].map(WEEKDAYS))
    return (
        alt.Chart(shown, title="Unallocated idle by hour of day (UTC)")
        .mark_rect()
        .encode(
            x=alt.X("hour_of_day:O", title="Hour of day (UTC)"),
            y=alt.Y("day_name:N", title="Weekday", sort=list(WEEKDAYS.values())),
            color=alt.Color(
                "unallocated_idle_share_of_hours:Q",
                title="Unallocated idle share of hours",
                scale=alt.Scale(domain=[0, 1], scheme="orangered"),
                legend=alt.Legend(format="%"),
            ),
            tooltip=[
                alt.Tooltip("day_name:N", title="Weekday"),
                alt.Tooltip("hour_of_day:O", title="Hour"),
                alt.Tooltip(
                    "unallocated_idle_share_of_hours:Q",
                    title="Unallocated idle share of hours",
                    format=".1%",
                ),
                alt.Tooltip(
                    "unallocated_idle_cost:Q", title="Unallocated idle cost (USD)", format="$,.2f"
                ),
            ],
        )
    )


def efficiency_bars(frame: pd.DataFrame) -> alt.Chart:
    """Best probe-measured TFLOP/s against spec. Columns: accelerator, dtype, best_achieved_tflops, spec_tflops."""
    long = frame.melt(
        id_vars=["accelerator", "dtype"],
        value_vars=["best_achieved_tflops", "spec_tflops"],
        var_name="measure",
        value_name="tflops",
    )
    long["measure"] = long["measure"].map(
        {"best_achieved_tflops": "Achieved (probe)", "spec_tflops": "Spec peak"}
    )
    long["series"] = long["accelerator"] + " " + long["dtype"]
    return (
        alt.Chart(long, title="Achieved vs spec TFLOP/s")
        .mark_bar()
        .encode(
            y=alt.Y("series:N", title="Accelerator and dtype"),
            yOffset="measure:N",
            x=alt.X("tflops:Q", title="TFLOP/s"),
            color=alt.Color("measure:N", title="Measure"),
            tooltip=["series:N", "measure:N", alt.Tooltip("tflops:Q", format=",.1f")],
        )
    )


def mfu_histogram(frame: pd.DataFrame) -> alt.Chart:
    """Distribution of runs' MFU against spec. Columns: mfu_spec_pct."""
    return (
        alt.Chart(frame, title="MFU distribution")
        .mark_bar()
        .encode(
            x=alt.X("mfu_spec_pct:Q", bin=alt.Bin(maxbins=30), title="MFU against spec peak (%)"),
            y=alt.Y("count():Q", title="Runs", axis=alt.Axis(format="d", tickMinStep=1)),
        )
    )


def budget_bars(frame: pd.DataFrame) -> alt.Chart:
    """Spend and forecast against each budget. Columns: budget, measure, usd."""
    return (
        alt.Chart(_drawn(frame, "usd"), title="Budgets")
        .mark_bar()
        .encode(
            y=alt.Y("budget:N", title="Budget"),
            yOffset="measure:N",
            x=alt.X("usd:Q", title="USD", axis=alt.Axis(format="$,.0f")),
            color=alt.Color("measure:N", title="Measure"),
            tooltip=["budget:N", "measure:N", alt.Tooltip("usd:Q", title="USD", format="$,.2f")],
        )
    )


def explorer_bars(frame: pd.DataFrame, group_title: str, grain_title: str) -> alt.Chart:
    """Effective cost per period, stacked by group. Columns: period, group_value, effective_cost."""
    return (
        alt.Chart(_drawn(frame, "effective_cost"), title=f"Effective cost, {grain_title.lower()}")
        .mark_bar()
        .encode(
            x=alt.X(
                "period:T", title=f"Period ({grain_title.lower()}, UTC)", timeUnit="yearmonthdate"
            ),
            y=alt.Y(
                "sum(effective_cost):Q", title="Effective cost (USD)", axis=alt.Axis(format="$,.0f")
            ),
            color=alt.Color("group_value:N", title=group_title),
            tooltip=[
                alt.Tooltip("period:T", title="Period"),
                alt.Tooltip("group_value:N", title=group_title),
                alt.Tooltip("effective_cost:Q", title="Effective cost (USD)", format="$,.2f"),
            ],
        )
    )


def cumulative_against_budget(
    frame: pd.DataFrame, budget: pd.Series | None
) -> alt.Chart | alt.LayerChart:
    """Cumulative effective cost per UTC day (columns: day, cumulative_effective_cost), with the budget's
    amount as a rule and its forecast at the period's end as a point when a budget is given."""
    line = (
        alt.Chart(_drawn(frame, "cumulative_effective_cost"), title="Cumulative spend")
        .mark_line(point=True)
        .encode(
            x=alt.X("day:T", title="Day (UTC)", timeUnit="yearmonthdate"),
            y=alt.Y(
                "cumulative_effective_cost:Q",
                title="Cumulative effective cost (USD)",
                axis=alt.Axis(format="$,.0f"),
            ),
            tooltip=[
                alt.Tooltip("day:T", title="Day"),
                alt.Tooltip(
                    "cumulative_effective_cost:Q",
                    title="Cumulative effective cost (USD)",
                    format="$,.2f",
                ),
            ],
        )
    )
    if budget is None:
        return line
    marks = pd.DataFrame(
        {
            "what": ["Budget", "Forecast"],
            "usd": [float(budget["amount_usd"]), float(budget["forecast"] or 0)],
            "day": [pd.Timestamp(budget["period_end"])] * 2,
        }
    )
    rule = (
        alt.Chart(marks[marks["what"] == "Budget"])
        .mark_rule(strokeDash=[4, 4])
        .encode(y="usd:Q", tooltip=["what:N", alt.Tooltip("usd:Q", title="USD", format="$,.2f")])
    )
    forecast = (
        alt.Chart(marks[marks["what"] == "Forecast"])
        .mark_point(shape="diamond", size=80)
        .encode(
            x=alt.X("day:T", timeUnit="yearmonthdate"),
            y="usd:Q",
            tooltip=["what:N", alt.Tooltip("usd:Q", title="USD", format="$,.2f")],
        )
    )
    return line + rule + forecast


def commitment_utilisation(frame: pd.DataFrame) -> alt.Chart:
    """Utilisation per commitment and UTC day. Columns: day, commitment_id, commitment_utilisation (0-1),
    unused_commitment_cost."""
    shown = _drawn(frame, "unused_commitment_cost")
    return (
        alt.Chart(shown, title="Commitment utilisation per day")
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "day:T",
                title="Day (UTC)",
                timeUnit="yearmonthdate",
                axis=alt.Axis(format="%b %d", tickCount={"interval": "day", "step": 1}),
            ),
            y=alt.Y(
                "commitment_utilisation:Q",
                title="Commitment utilisation",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
            ),
            color=alt.Color("commitment_id:N", title="Commitment"),
            tooltip=[
                alt.Tooltip("day:T", title="Day"),
                alt.Tooltip("commitment_id:N", title="Commitment"),
                alt.Tooltip(
                    "commitment_utilisation:Q", title="Commitment utilisation", format=".1%"
                ),
                alt.Tooltip(
                    "unused_commitment_cost:Q", title="Unused commitment cost (USD)", format="$,.2f"
                ),
            ],
        )
    )


def portfolio_bars(frame: pd.DataFrame) -> alt.LayerChart:
    """USD per million tokens per workload class, one labelled bar per family it ran on
    (accelerator type or managed provider): the shortest bar is the cheapest. Columns:
    workload_class, family, venue, cost_per_million_tokens, busy_pct, cost_per_delivered_pflop_hour."""
    shown = _drawn(
        frame[frame["cost_per_million_tokens"].notna()],
        "cost_per_million_tokens",
        "cost_per_delivered_pflop_hour",
    )
    base = alt.Chart(shown, title="Where each workload ran: cost per million tokens").encode(
        y=alt.Y("workload_class:N", title="Workload class"),
        yOffset=alt.YOffset("family:N", sort="ascending"),
        x=alt.X(
            "cost_per_million_tokens:Q",
            title="Cost per million tokens (USD)",
            axis=alt.Axis(format="$,.2f"),
        ),
        tooltip=[
            alt.Tooltip("workload_class:N", title="Workload class"),
            alt.Tooltip("family:N", title="Ran on"),
            alt.Tooltip("venue:N", title="Venue"),
            alt.Tooltip(
                "cost_per_million_tokens:Q", title="Cost per million tokens (USD)", format="$,.3f"
            ),
            alt.Tooltip("busy_pct:Q", title="Busy share (%)", format=",.1f"),
            alt.Tooltip(
                "cost_per_delivered_pflop_hour:Q",
                title="Cost per delivered PFLOP-hour (USD)",
                format="$,.2f",
            ),
        ],
    )
    bars = base.mark_bar().encode(color=alt.Color("family:N", title="Accelerator or provider"))
    labels = base.mark_text(align="left", dx=3, fontSize=10).encode(
        text=alt.Text("cost_per_million_tokens:Q", format="$,.2f")
    )
    return bars + labels
