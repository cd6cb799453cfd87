"""The demo's and `flopledger run`'s "Managed inference" lines: managed spend as its own line
(it is not on the cloud bill), and self-hosted against the cheapest provider per model with
the utilisation at which self-hosting breaks even (docs/managed-inference.md)."""

from decimal import Decimal

from flopledger.models import query_sql
from flopledger.warehouse import Warehouse


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _rate(value: Decimal | float | None) -> str:
    return "-" if value is None else f"{value:,.4f}"


def _verdict(utilisation: float | None, break_even: float | None) -> str:
    if utilisation is None or break_even is None:
        return "no telemetry"
    if break_even > 1:
        return "managed wins at any utilisation"
    return "self-hosted wins" if utilisation > break_even else "managed wins"


def managed_lines(warehouse: Warehouse, currency: str) -> list[str]:
    total = warehouse.query(query_sql("managed_spend_total")).to_pylist()[0]
    rows = warehouse.query(
        query_sql("self_hosted_vs_managed"), {"window_start": None, "window_end": None}
    ).to_pylist()
    if total["requests"] is None:
        return []
    unpriced = total["unpriced_requests"]
    lines = [
        "",
        f"managed inference {total['first_day']} .. {total['last_day']} (not on the cloud bill)",
        f"  {'managed spend':<28}{format(total['cost'] or 0, ',.2f') + ' ' + currency:>22}"
        f"   ({total['requests']:,} requests, {total['providers']} providers"
        + (f"; {unpriced:,} unpriced" if unpriced else "")
        + ")",
    ]
    if rows:
        lines += [
            f"  self-hosted vs managed, per M tokens ({currency}; the same token mix at the "
            "cheapest provider's list price)",
            f"  {'model':<16}{'self-hosted':>12}  {'provider':<22}{'util now':>8}"
            f"{'break-even':>12}  verdict",
        ]
        for r in rows:
            provider = f"{_rate(r['provider_per_mtok'])} {r['cheapest_provider'][:14]}"
            lines.append(
                f"  {r['model'][:15]:<16}{_rate(r['self_hosted_per_mtok']):>12}  {provider:<22}"
                f"{_pct(r['utilisation']):>8}{_pct(r['break_even_utilisation']):>12}  "
                f"{_verdict(r['utilisation'], r['break_even_utilisation'])}"
            )
    return lines
