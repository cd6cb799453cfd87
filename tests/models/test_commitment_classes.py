"""Which rows are commitment fees, unused reservation or usage, from real fee SKU strings
(tests/fixtures/gcp_sku_descriptions/commitment_fee_skus.txt) and the accelerator table."""

from decimal import Decimal as D
from pathlib import Path

from flopledger.collectors.skus import classify_sku
from tests.models.rows import line_item

FEE_SKUS = (
    (Path(__file__).parents[1] / "fixtures" / "gcp_sku_descriptions" / "commitment_fee_skus.txt")
    .read_text()
    .splitlines()
)


def test_a_fee_sku_names_its_accelerator_through_the_accelerator_table():
    found = [classify_sku(s, "Compute Engine") for s in FEE_SKUS]
    assert [(f.accelerator_type, f.pricing_model, f.is_commitment_fee, f.commitment_term)
            for f in found] == [("B200-180GB", "commitment", True, "1 Year"),
                                ("B200-180GB", "commitment", True, "3 Years")]  # fmt: skip


def test_fee_rows_are_commitments_with_their_term_and_kind(books):
    # Two B200 commitments (1 and 3 years), each 4 GPUs for an hour (14,400 GPU-s), unused:
    # their fees (50 and 40) are unused commitment; neither is a machine in idle_capacity.
    # A 1-year CPU commitment (no accelerator: cores) and an ordinary B200 row for contrast.
    billing = [
        line_item(sku=FEE_SKUS[0], cost=50, resource="cud-b200-1y",
                  accelerator_type="B200-180GB", accelerator_seconds=14400,
                  usage_amount=14400, usage_unit="seconds"),
        line_item(sku=FEE_SKUS[1], cost=40, resource="cud-b200-3y",
                  accelerator_type="B200-180GB", accelerator_seconds=14400,
                  usage_amount=14400, usage_unit="seconds"),
        line_item(sku="Commitment v1: Cpu in Americas for 1 Year", cost=3, resource="cud-cpu",
                  usage_amount=360000, usage_unit="seconds"),
        line_item(sku="A4 Nvidia B200 (1 gpu slice) running in Americas", cost=64,
                  resource="vm-b", accelerator_type="B200-180GB", accelerator_seconds=14400,
                  usage_amount=14400, usage_unit="seconds"),
    ]  # fmt: skip
    b = books.build(billing, [])
    kinds = b.rows("SELECT resource_name, row_kind, resource_kind FROM billing_hourly ORDER BY 1")
    assert kinds == [
        {"resource_name": "cud-b200-1y", "row_kind": "commitment_fee", "resource_kind": "B200-180GB"},
        {"resource_name": "cud-b200-3y", "row_kind": "commitment_fee", "resource_kind": "B200-180GB"},
        {"resource_name": "cud-cpu", "row_kind": "commitment_fee", "resource_kind": "cores"},
        {"resource_name": "vm-b", "row_kind": "usage", "resource_kind": "B200-180GB"},
    ]  # fmt: skip
    hourly = b.rows(
        "SELECT commitment_id, term, committed_nanos, unused_nanos FROM commitment_hourly ORDER BY 1"
    )
    assert hourly == [
        {"commitment_id": "cud-b200-1y", "term": "1 Year", "committed_nanos": 14400 * 10**9,
         "unused_nanos": 50 * 10**9},
        {"commitment_id": "cud-b200-3y", "term": "3 Years", "committed_nanos": 14400 * 10**9,
         "unused_nanos": 40 * 10**9},
        {"commitment_id": "cud-cpu", "term": "1 Year", "committed_nanos": 360000 * 10**9,
         "unused_nanos": 3 * 10**9},
    ]  # fmt: skip
    idle = b.rows("SELECT resource_name, unallocated_idle_cost FROM idle_capacity")
    assert idle == [{"resource_name": "vm-b", "unallocated_idle_cost": D("64")}]
    # Cores commitments have no accelerator-hours.
    cpu = b.rows("SELECT * FROM unused_capacity WHERE name = 'cud-cpu'")[0]
    assert cpu["unused_accelerator_hours"] is None and cpu["unused_cost"] == D("3")
    checks = b.rows("SELECT difference FROM books")
    assert checks and all(c["difference"] == 0 for c in checks)
