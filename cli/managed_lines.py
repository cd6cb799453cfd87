"""The demo's and `flopledger run`'s "Managed inference" lines: managed spend as its own line
(it is not on the cloud bill), and self-hosted against the cheapest provider per model with
the utilisation at which self-hosting breaks even (docs/managed-inference.md). Figures and
their headings come from figures/__init__.py; the comparison is self_hosted_vs_managed's, the
query the tokens page runs too."""

from decimal import Decimal

from flopledger.cli.filters import unfiltered
from flopledger.figures import figure
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _rate(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:,.4f}"


def _verdict(utilisation: float | None, break_even: float | None) -> str:
    if utilisation is None or break_even is None:
        return "no telemetry"
    if break_even > 1:
        return "managed wins at any utilisation"
    return "self-hosted wins" if utilisation > break_even else "managed wins"


def managed_lines(warehouse: Warehouse, currency: str) -> list[str]:
    everything = unfiltered("managed_spend", group_by=None)
    totals = warehouse.query(query_sql("managed_spend"), everything).to_pylist()
    compared = unfiltered("self_hosted_vs_managed")
    rows = warehouse.query(query_sql("self_hosted_vs_managed"), compared).to_pylist()
    if not totals:
        return []
    total = totals[0]
    unpriced = total["unpriced_requests"]
    lines = [
        "",
        f"managed inference {total['first_day']} .. {total['last_day']} (not on the cloud bill)",
        f"  {figure('managed_spend').name.lower():<28}"
        f"{format(total['managed_spend'] or 0, ',.2f') + ' ' + currency:>22}"
        f"   ({total['managed_requests']:,} requests, {total['providers']} providers"
        + (f"; {unpriced:,} unpriced" if unpriced else "")
        + ")",
    ]
    return lines + _comparison_lines(rows, currency)


def _comparison_lines(rows: list[dict], currency: str) -> list[str]:
    if not rows:
        return []
    own, provider, util, even = (
        figure(k).short
        for k in (
            "self_hosted_cost_per_million_tokens",
            "provider_cost_per_million_tokens",
            "self_hosted_utilisation",
            "self_hosting_break_even_utilisation",
        )
    )
    lines = [
        f"  self-hosted vs managed, per M tokens ({currency}; the same token mix at the "
        "cheapest provider's list price)",
        f"  {'model':<16}{own:>12}  {provider:<22}{util:>8}{even:>12}  verdict",
    ]
    for r in rows:
        cheapest = f"{_rate(r['provider_cost_per_million_tokens'])} {r['cheapest_provider'][:14]}"
        utilisation, break_even = (
            r["self_hosted_utilisation"],
            r["self_hosting_break_even_utilisation"],
        )
        lines.append(
            f"  {r['model'][:15]:<16}{_rate(r['self_hosted_cost_per_million_tokens']):>12}  "
            f"{cheapest:<22}{_pct(utilisation):>8}{_pct(break_even):>12}  "
            f"{_verdict(utilisation, break_even)}"
        )
    return lines
