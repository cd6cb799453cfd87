"""The SKU columns of billing rows loaded before they existed, filled once (issue 34).

A warehouse made before billing_line_items had sku_kind (and the columns beside it) gains them
as nulls (ensure_schema). Each billing run classifies the (service, SKU) pairs of the rows still
unclassified with the rules every read path uses (collectors/skus.py, through the lookup the
SQL readers join on) and sets them in place; a warehouse whose rows are all classified costs one
query. No Dagster here: the billing asset and tests call it alike.
"""

from __future__ import annotations

from flopledger.collectors.gcp_billing.columnar import sku_lookups
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse

KEYS = ("service_name", "sku_description")
# What the fill sets: the lookup's columns but the accelerator type, which every row has had
# since its load (accelerator_seconds was worked out from it; neither is rewritten). A row's
# pricing_model is set again by the rule it was loaded with: the same value.
FILLED = (
    "pricing_model",
    "sku_kind",
    "is_commitment_fee",
    "commitment_term",
    "network_traffic",
    "is_egress",
)


def classify_unclassified(warehouse: Warehouse) -> int:
    """Classify the billing rows whose sku_kind is null; returns how many were set."""
    found = warehouse.query(query_sql("billing_unclassified_skus"))
    if found.num_rows == 0:
        return 0
    pairs = zip(
        found["service_name"].to_pylist(), found["sku_description"].to_pylist(), strict=True
    )
    skus, _ = sku_lookups(pairs)
    return warehouse.fill_nulls(
        "billing_line_items", KEYS, skus.select([*KEYS, *FILLED]), "sku_kind"
    )
