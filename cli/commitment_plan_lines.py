"""The commitment plan as text: `flopledger plan commitments` and the demo's "commitment plan"
section (docs/commitments.md). One block per accelerator type and region."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flopledger.figures import figure
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse

TERM_NAMES = {"1y": "1-year", "3y": "3-year"}


def _m(amount: Decimal | None) -> str:
    return "-" if amount is None else f"{amount:,.2f}"


def _pct(value: Decimal | float | None) -> str:
    return "-" if value is None else f"{float(value):.0%}"


def _count(value: Decimal | int | None) -> str:
    return "-" if value is None else f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"


def _block(r: dict[str, Any], currency: str) -> list[str]:
    head = f"  {r['accelerator_type']} in {r['region']}"
    if r["recommended_accelerators"] is None:
        return [head, f"    {r['flag']}"]
    lines = [
        f"{head}: commit to {r['recommended_accelerators']} (today {_count(r['committed_now'])});"
        f" {figure('break_even_utilisation').short}"
        f" {_pct(r['break_even_utilisation'])}",
        f"    demand {r['paid_accelerator_hours']:,.1f} paid + {r['queued_accelerator_hours']:,.1f}"
        f" queued accelerator-hours over {r['hours']} h; peak {r['peak_demand_accelerators']:,.1f}",
        f"    cost {_m(r['recommended_cost'])} {currency}: saves {_m(r['recommended_savings_vs_on_demand'])}"
        f" against all on-demand ({_m(r['on_demand_cost'])}),"
        f" {_m(r['recommended_savings_vs_current'])} against today's ({_m(r['current_cost'])})",
        f"    if demand fell 20%: {r['demand_fall_accelerators']}"
        f" (saves {_m(r['demand_fall_savings_vs_on_demand'])});"
        f" without failed runs' {r['failed_accelerator_hours']:,.1f} h:"
        f" {r['without_failed_accelerators']} (saves {_m(r['without_failed_savings_vs_on_demand'])})",
        f"    busy {_pct(r['busy_share'])} of held hours; on busy demand: {_count(r['busy_accelerators'])}",
    ]
    if r["flag"]:
        lines.append(f"    ! {r['flag']}")
    return lines


def plan_lines(rows: list[dict[str, Any]], currency: str) -> list[str]:
    if not rows:
        return []
    first = rows[0]
    lines = [
        "",
        f"commitment plan: {TERM_NAMES.get(first['term'], first['term'])} term, last"
        f" {first['days']} day{'' if first['days'] == 1 else 's'} ({min(r['first_hour'] for r in rows):%Y-%m-%d %H:00} .."
        f" {max(r['last_hour'] for r in rows):%Y-%m-%d %H:00} UTC), demand = paid + queued",
    ]
    for r in rows:
        lines += _block(r, currency)
    return lines


def commitment_plan_lines(warehouse: Warehouse, currency: str, term: str = "1y") -> list[str]:
    """The demo's section: commitment_plan's rows for one term (none when it is empty)."""
    rows = warehouse.query(query_sql("commitment_plan_rows"), {"term": term}).to_pylist()
    return plan_lines(rows, currency)
