"""One export row in the detailed usage cost export's shape (schema field order, every field).

Values are kept exact until written: times as integer microseconds, FLOAT and NUMERIC fields
as Decimal (FLOAT values have at most 6 places for money, so they survive a float64 exactly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from flopledger.simulator.clock import to_naive
from flopledger.simulator.fleet import Account, Project
from flopledger.simulator.prices import Sku, list_cost_usd, pricing_units, round_cost

ORG = ("organizations/123456789012", "acme.example")
PRICE_PLACES = Decimal("1e-9")


@dataclass(frozen=True)
class Where:
    """Resource, place and labels of a row."""

    resource: tuple[str, str] | None  # (name, global_name)
    location: tuple[str, str, str | None, str | None] | None  # (location, country, region, zone)
    labels: dict[str, str] = field(default_factory=dict)
    system_labels: dict[str, str] = field(default_factory=dict)
    tags: tuple[tuple[str, str], ...] = ()


def _pairs(items: dict[str, str]) -> list[dict[str, str]]:
    return [{"key": k, "value": v} for k, v in items.items()]


def _project(project: Project) -> dict[str, Any]:
    return {
        "id": project.project_id,
        "number": project.number,
        "name": project.project_id,
        "labels": [{"key": "cost-center", "value": f"cc-{project.team}"}],
        "ancestry_numbers": f"/123456789012/{project.number}/",
        "ancestors": [
            {"resource_name": f"projects/{project.number}", "display_name": project.project_id},
            {"resource_name": ORG[0], "display_name": ORG[1]},
        ],
    }


def _location(where: Where) -> dict[str, Any] | None:
    if where.location is None:
        return None
    location, country, region, zone = where.location
    return {"location": location, "country": country, "region": region, "zone": zone}


def _price(sku: Sku, account: Account) -> dict[str, Any]:
    price = (sku.list_price_usd * account.rate).quantize(PRICE_PLACES)
    return {
        "effective_price": price,
        "tier_start_amount": Decimal(0),
        "unit": sku.pricing_unit or None,
        "pricing_unit_quantity": Decimal(1),
        "list_price": price,
        "effective_price_default": price,
        "list_price_consumption_model": price,
    }


def _tags(where: Where, project: Project) -> list[dict[str, Any]]:
    return [
        {"key": k, "value": v, "inherited": True, "namespace": f"{project.number}/{k}"}
        for k, v in where.tags
    ]


def usage_cost(sku: Sku, account: Account, usage_amount: Decimal) -> Decimal:
    """The row's cost in its billing currency, rounded as the export rounds it."""
    return round_cost(list_cost_usd(sku, usage_amount) * account.rate)


def credit(kind: str, amount: Decimal, credit_id: str | None = None) -> dict[str, Any]:
    """One credit as the export writes it; `credit_id` overrides the id (a resource-based
    committed use discount's id names its commitment)."""
    names = {
        "COMMITTED_USAGE_DISCOUNT": (
            "Committed use discount: GPU",
            "GPU committed use discount",
            "CommittedUsageDiscountCredit:7f3e21",
        ),
        "SUSTAINED_USAGE_DISCOUNT": ("Sustained Usage Discount", None, "SustainedUsageDiscount"),
        "PROMOTION": (
            "Research credits 2026",
            "Research credits 2026",
            "PromotionCredit:RC-2026-0042",
        ),
    }
    name, full_name, default_id = names[kind]
    return {
        "name": name,
        "amount": amount,
        "full_name": full_name,
        "id": credit_id or default_id,
        "type": kind,
    }


@dataclass(frozen=True)
class Charge:
    """What a row charges: a SKU's usage over a window, or a given cost."""

    sku: Sku
    start_us: int
    end_us: int
    usage_amount: Decimal
    export_us: int
    cost: Decimal | None = None  # None: the usage at list price
    credits: tuple[dict[str, Any], ...] = ()
    cost_type: str = "regular"
    adjustment: dict[str, str] | None = None


def make_row(account: Account, project: Project, where: Where, charge: Charge) -> dict[str, Any]:
    """The export row, every schema field present, in the schema's order."""
    sku = charge.sku
    at_list = usage_cost(sku, account, charge.usage_amount)
    cost = at_list if charge.cost is None else charge.cost
    return {
        "billing_account_id": account.account_id,
        "service": {"id": sku.service[0], "description": sku.service[1]},
        "sku": {"id": sku.sku_id, "description": sku.description},
        "usage_start_time": charge.start_us,
        "usage_end_time": charge.end_us,
        "project": _project(project),
        "labels": _pairs(where.labels),
        "system_labels": _pairs(where.system_labels),
        "location": _location(where),
        "resource": None
        if where.resource is None
        else {"name": where.resource[0], "global_name": where.resource[1]},
        "tags": _tags(where, project),
        "price": None if charge.cost_type == "tax" else _price(sku, account),
        "subscription": None,
        "transaction_type": "GOOGLE",
        "seller_name": None,
        "export_time": charge.export_us,
        "cost": cost,
        "currency": account.currency,
        "currency_conversion_rate": account.rate,
        "usage": _usage(sku, charge.usage_amount),
        "credits": list(charge.credits),
        "invoice": {"month": f"{to_naive(charge.start_us):%Y%m}", "publisher_type": "GOOGLE"},
        "cost_type": charge.cost_type,
        "adjustment_info": charge.adjustment,
        "cost_at_list": cost if charge.cost is not None else at_list,
        "consumption_model": {
            "id": "default",
            "description": "Default",
            "applied_subscription_instance_id": None,
        },
        "cost_at_effective_price_default": cost,
        "cost_at_list_consumption_model": cost if charge.cost is not None else at_list,
    }


def _usage(sku: Sku, amount: Decimal) -> dict[str, Any]:
    if not sku.usage_unit:
        return {
            "amount": Decimal(0),
            "unit": None,
            "amount_in_pricing_units": Decimal(0),
            "pricing_unit": None,
        }
    in_units = pricing_units(sku, amount).quantize(PRICE_PLACES)
    return {
        "amount": amount,
        "unit": sku.usage_unit,
        "amount_in_pricing_units": in_units,
        "pricing_unit": sku.pricing_unit,
    }
