"""The commitment_plan table: the planner (planning/commitment_planner.py) over the last
commitment_plan_days days of commitment_demand_hourly, for both terms, priced by the accelerator
price book (flopledger.yaml's price_book over the shipped one)."""

from __future__ import annotations

import dagster as dg
import pyarrow as pa

from flopledger.accelerators.prices import PriceBookError, price_book
from flopledger.pipelines.resources import Flopledger
from flopledger.planning.commitment_planner import TERMS, plan_from_warehouse

MONEY = pa.decimal128(38, 9)
SHARE = pa.decimal128(12, 6)
PRICE = pa.decimal128(38, 12)  # the price book allows 12 places
SCHEMA = pa.schema(
    [
        ("accelerator_type", pa.string()),
        ("region", pa.string()),
        ("term", pa.string()),
        ("days", pa.int32()),
        ("first_hour", pa.timestamp("us")),
        ("last_hour", pa.timestamp("us")),
        ("hours", pa.int32()),
        ("paid_accelerator_hours", pa.float64()),
        ("queued_accelerator_hours", pa.float64()),
        ("failed_accelerator_hours", pa.float64()),
        ("peak_demand_accelerators", pa.float64()),
        ("on_demand_per_hour", PRICE),
        ("committed_per_hour", PRICE),
        ("price_as_of", pa.date32()),
        ("price_source", pa.string()),
        ("break_even_utilisation", SHARE),
        ("committed_now", MONEY),
        ("recommended_accelerators", pa.int32()),
        ("recommended_cost", MONEY),
        ("recommended_savings_vs_on_demand", MONEY),
        ("recommended_savings_vs_current", MONEY),
        ("on_demand_cost", MONEY),
        ("current_cost", MONEY),
        ("commitment_utilisation", SHARE),
        ("hours_above_share", SHARE),
        ("demand_fall_accelerators", pa.int32()),
        ("demand_fall_cost", MONEY),
        ("demand_fall_savings_vs_on_demand", MONEY),
        ("demand_fall_savings_vs_current", MONEY),
        ("without_failed_accelerators", pa.int32()),
        ("without_failed_cost", MONEY),
        ("without_failed_savings_vs_on_demand", MONEY),
        ("without_failed_savings_vs_current", MONEY),
        ("busy_share", pa.float64()),
        ("busy_accelerators", pa.int32()),
        ("idle_committed_accelerators", pa.int32()),
        ("flag", pa.string()),
    ]
)


def plan_table(rows: list[dict[str, object]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


@dg.asset(
    name="commitment_plan",
    group_name="marts",
    deps=["commitment_demand_hourly", "commitment_hourly"],
    kinds={"duckdb"},
    description="How many accelerators to commit to next, per accelerator type, region and term "
    "(planning/commitment_planner.py over commitment_demand_hourly and the price book).",
)
def commitment_plan(flopledger: Flopledger) -> dg.MaterializeResult:
    config = flopledger.config()
    warehouse = flopledger.warehouse()
    # A bad price book must not hold back the snapshot (it is downstream): every row says why
    # it has no plan instead, and the metadata carries the error.
    try:
        prices, error = price_book(config.price_book), None
    except PriceBookError as exc:
        prices, error = {}, f"price book: {exc}"
    rows = plan_from_warehouse(
        lambda sql, params: warehouse.query(sql, params).to_pylist(),
        prices,
        TERMS,
        config.commitment_plan_days,
    )
    if error:
        rows = [{**r, "flag": error} for r in rows]
    table = plan_table(rows)
    warehouse.replace_all("commitment_plan", table)
    metadata: dict[str, dg.MetadataValue] = {"rows": dg.MetadataValue.int(table.num_rows)}
    if error:
        metadata["price_book_error"] = dg.MetadataValue.text(error)
    return dg.MaterializeResult(metadata=metadata)
