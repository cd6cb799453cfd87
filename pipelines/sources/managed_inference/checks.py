"""Checks on managed inference: every request priced, and the two prices agree.

Both WARN: an unpriced request means a price is missing from the book (its cost is not
counted); a disagreement means the gateway's price table or the book is out of date."""

import dagster as dg

from flopledger.models import query_sql
from flopledger.pipelines.resources import Flopledger


def _count(flopledger: Flopledger, query: str) -> int:
    return int(flopledger.warehouse().query(query_sql(query)).to_pylist()[0]["n"])


@dg.asset_check(
    asset="cost_per_request",
    name="managed_requests_priced",
    description="Every managed request has a cost (from the gateway or the price book).",
)
def requests_priced(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "managed_unpriced_requests_count")
    return dg.AssetCheckResult(
        passed=n == 0,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"{n} request(s) without a price: add their provider and model to the price book",
        metadata={"unpriced": dg.MetadataValue.int(n)},
    )


@dg.asset_check(
    asset="cost_per_request",
    name="managed_prices_agree",
    description="Where the gateway and the price book both priced a request, they agree (1%).",
)
def prices_agree(flopledger: Flopledger) -> dg.AssetCheckResult:
    n = _count(flopledger, "managed_price_mismatch_count")
    return dg.AssetCheckResult(
        passed=n == 0,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"{n} request(s) priced differently by the gateway and the price book",
        metadata={"mismatches": dg.MetadataValue.int(n)},
    )


def build_checks() -> list[dg.AssetChecksDefinition]:
    return [requests_priced, prices_agree]
