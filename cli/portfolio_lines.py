"""The demo's and `flopledger run`'s "where should this workload run" lines: per workload class,
the family (accelerator type or managed provider) that delivered its tokens cheapest in the
latest month, how many tokens it delivered (a provider tried on a handful of requests can be
cheapest), its busy share and USD per delivered PFLOP-hour, and the next cheapest
(accelerator_portfolio; measured figures only, never what a run would have cost elsewhere)."""

from decimal import Decimal
from typing import Any

from flopledger.cli.filters import unfiltered
from flopledger.figures import figure
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse


def _rate(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:,.4f}"


def _mtok(tokens: Decimal | int | None) -> str:
    return "-" if tokens is None else f"{int(tokens) / 1e6:,.1f}"


def _busy(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}%"


def _runner_up(second: dict[str, Any] | None) -> str:
    if second is None:
        return "only one family"
    times = second["times_cheapest"]
    ratio = "" if times is None else f" ({times:.1f}x)"
    return f"{second['family'][:14]} {_rate(second['cost_per_million_tokens'])}{ratio}"


def portfolio_lines(warehouse: Warehouse, currency: str) -> list[str]:
    params = unfiltered("portfolio", latest_only=True, per_class_limit=2)
    rows = warehouse.query(query_sql("portfolio"), params).to_pylist()
    if not rows:
        return []
    by_class: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_class.setdefault(r["workload_class"], []).append(r)
    lines = [
        "",
        f"where should this workload run, {rows[0]['month']:%Y-%m} (measured: {currency} per M "
        "tokens; busy share; per delivered PFLOP-hour)",
        f"  {'workload class':<18}{'cheapest':<16}{figure('cost_per_million_tokens').short:>10}"
        f"{'M tok':>10}{figure('busy_pct').short:>6}"
        f"{figure('cost_per_delivered_pflop_hour').short:>13}  next cheapest",
    ]
    for workload, (best, *rest) in by_class.items():
        lines.append(
            f"  {workload[:17]:<18}{best['family'][:15]:<16}"
            f"{_rate(best['cost_per_million_tokens']):>10}{_mtok(best['tokens']):>10}"
            f"{_busy(best['busy_pct']):>6}"
            f"{_rate(best['cost_per_delivered_pflop_hour']):>13}  "
            f"{_runner_up(rest[0] if rest else None)}"
        )
    return lines
