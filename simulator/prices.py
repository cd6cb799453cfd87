"""The SKU price table, as data: what each simulated usage costs at list price (USD).

Descriptions are the real `sku.description` strings (see shared/data/formats/gcp_sku_descriptions);
ids are made up in the real id's shape. `per_pricing_unit` is how many usage units make one
pricing unit (usage seconds per hour, byte-seconds per GiB-month, bytes per GiB).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from typing import NamedTuple

GIB = 2**30
HOUR_S = 3600
MONTH_S = 730 * HOUR_S  # Google prices a "month" of storage as 730 hours
COST_PLACES = Decimal("0.000001")  # the export writes costs rounded to 6 places
CUD_RATE = Decimal("0.37")  # committed use: the fee's discount on the on-demand GPU price

COMPUTE = ("6F81-5844-456A", "Compute Engine")
STORAGE = ("95FF-2EF5-5EA1", "Cloud Storage")


class Sku(NamedTuple):
    key: str
    sku_id: str
    description: str
    service: tuple[str, str]  # (service.id, service.description)
    usage_unit: str
    pricing_unit: str
    per_pricing_unit: int
    list_price_usd: Decimal  # per pricing unit


SKUS: dict[str, Sku] = {
    s.key: s
    for s in (
        Sku(
            "h100",
            "2D5C-6A1E-9F41",
            "Nvidia H100 80GB GPU running in Americas",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("9.796550569"),
        ),
        Sku(
            "a3_core",
            "8A51-1B0E-7C2D",
            "A3 Instance Core running in Americas",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("0.0329"),
        ),
        Sku(
            "a3_ram",
            "7B3D-44A9-E170",
            "A3 Instance Ram running in Americas",
            COMPUTE,
            "byte-seconds",
            "gibibyte hour",
            GIB * HOUR_S,
            Decimal("0.0044"),
        ),
        Sku(
            "h200",
            "5E1B-0FD2-88A3",
            "H200 141GB GPU running in Americas",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("9.31174"),
        ),
        Sku(
            "a3u_core",
            "C1D2-5A3B-90E4",
            "A3 Ultra Instance Core running in Americas",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("0.0319"),
        ),
        Sku(
            "a3u_ram",
            "D4E6-2B71-03F8",
            "A3 Ultra Instance Ram running in Americas",
            COMPUTE,
            "byte-seconds",
            "gibibyte hour",
            GIB * HOUR_S,
            Decimal("0.0043"),
        ),
        Sku(
            "v5p",
            "9C0E-3A7F-61B5",
            "TpuV5p chip running in Americas",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("4.20"),
        ),
        Sku(
            "v6e",
            "A2F7-6C04-D93E",
            "TpuV6e chip running in Americas",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("2.70"),
        ),
        Sku(
            "pd",
            "D973-5D65-BAB2",
            "Balanced PD Capacity",
            COMPUTE,
            "byte-seconds",
            "gibibyte month",
            GIB * MONTH_S,
            Decimal("0.10"),
        ),
        Sku(
            "gcs",
            "E5F0-6A5B-7BDE",
            "Standard Storage US Multi-region",
            STORAGE,
            "byte-seconds",
            "gibibyte month",
            GIB * MONTH_S,
            Decimal("0.026"),
        ),
        Sku(
            "egress",
            "9DE9-9092-B3BC",
            "Network Internet Data Transfer Out from Americas to Americas",
            COMPUTE,
            "bytes",
            "gibibyte",
            GIB,
            Decimal("0.12"),
        ),
        Sku(
            # The fee of a 1-year resource-based commitment to H100s: usage is the committed
            # GPU-seconds (SKU pattern as in shared/data/formats/gcp_sku_descriptions).
            "h100_commitment",
            "3F6A-81C2-D05B",
            "Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("9.796550569") * (1 - CUD_RATE),
        ),
        # --billing-detail full (simulator/billing.py): the rest of what a GPU VM is billed for
        # each hour. Descriptions as public price-catalogue code matches them (exact strings;
        # see FULL_DETAIL_SOURCES below); prices are us-central1 list prices.
        Sku(
            "pd_ssd",
            "B188-61DD-52E4",
            "SSD backed PD Capacity",
            COMPUTE,
            "byte-seconds",
            "gibibyte month",
            GIB * MONTH_S,
            Decimal("0.17"),
        ),
        Sku(
            "local_ssd",
            "2E27-4F85-C1B9",
            "SSD backed Local Storage",
            COMPUTE,
            "byte-seconds",
            "gibibyte month",
            GIB * MONTH_S,
            Decimal("0.08"),
        ),
        Sku(
            "snapshot",
            "BCD2-8B1D-6E92",
            "Storage PD Snapshot in US",
            COMPUTE,
            "byte-seconds",
            "gibibyte month",
            GIB * MONTH_S,
            Decimal("0.05"),
        ),
        Sku(
            "inter_zone",
            "DE9E-AFBC-A15A",
            "Network Inter Zone Data Transfer Out",
            COMPUTE,
            "bytes",
            "gibibyte",
            GIB,
            Decimal("0.01"),
        ),
        Sku(
            "external_ip",
            "4C01-2ADE-D2CB",
            "External IP Charge on a Standard VM",
            COMPUTE,
            "seconds",
            "hour",
            HOUR_S,
            Decimal("0.005"),
        ),
        Sku("tax", "TAX0-0000-0001", "Tax", COMPUTE, "", "", 1, Decimal(0)),
    )
}

# Where the --billing-detail full descriptions were seen (code search ids; repositories not
# identified, licences unknown: only Google's SKU names are reproduced): "SSD backed PD Capacity"
# and "Storage PD Snapshot in US" in a SQL filter on real export rows (3524880357); "SSD backed
# Local Storage" as a catalogue SKU's Description in a Go test (60443593486); "Network Inter Zone
# Data Transfer Out" and "External IP Charge on a Standard VM" in cost reports read from real
# exports (69208131141, 57975162365) and in Infracost-style price filters (10878577003).
ACCELERATOR_SKUS = ("h100", "h200", "v5p", "v6e")  # usage in accelerator-seconds
TAX_RATE = Decimal("0.0825")
SUD_RATE = Decimal("0.20")  # sustained use: share of the core cost credited back


def round_cost(amount: Decimal) -> Decimal:
    """A cost as the export writes it: 6 places, half to even."""
    return amount.quantize(COST_PLACES, rounding=ROUND_HALF_EVEN)


def pricing_units(sku: Sku, usage_amount: Decimal) -> Decimal:
    return usage_amount / sku.per_pricing_unit


def list_cost_usd(sku: Sku, usage_amount: Decimal) -> Decimal:
    """The list cost of `usage_amount` usage units, unrounded."""
    return pricing_units(sku, usage_amount) * sku.list_price_usd
