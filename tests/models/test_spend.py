"""Spend by category and team, invoice months, storage, egress and team chargeback, by hand."""

from decimal import Decimal as D

from tests.models.rows import gpu, line_item, run


def test_spend_categories_teams_and_chargeback(books):
    # 100 GiB kept for a day: 100 x 1,073,741,824 bytes x 86,400 s; egress 10 GiB in bytes.
    storage = line_item(
        end_hour="2026-10-02 00",
        sku="Standard Storage US Multi-region",
        resource="ckpt",
        cost="2.60",
        labels={"team": "llm"},
        service="Cloud Storage",
        usage_amount=1073741824 * 86400 * 100,
        usage_unit="byte-seconds",
    )
    egress = line_item(
        sku="Network Internet Egress from Americas to Americas",
        resource=None,
        cost="1.20",
        labels={"team": "vision"},
        usage_amount=10 * 1073741824,
        usage_unit="bytes",
    )
    tax = line_item(sku="Tax", resource=None, cost="5", cost_type="tax")
    billing = [
        gpu("2026-10-01 00", 80, labels={"team": "llm"}, credits=(-8,)),
        gpu("2026-10-01 01", 80, labels={"team": "llm"}),
        storage,
        egress,
        tax,
    ]
    runs = [
        run("llm-1", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z", team="llm"),
        run("vis-1", "2026-10-01T01:00:00Z", "2026-10-01T01:30:00Z", team="vision"),
    ]
    b = books.build(billing, runs)
    spend = {
        (r["team"], r["category"]): r["effective_cost"]
        for r in b.rows("SELECT team, category, effective_cost FROM spend_daily")
    }
    # accelerator 80 - 8 + 80 = 152; storage 2.60; network 1.20 (vision); tax 5 (no team label).
    assert spend == {
        ("llm", "accelerator"): D("152"),
        ("llm", "storage"): D("2.60"),
        ("vision", "network"): D("1.20"),
        ("__unallocated__", "tax"): D("5"),
    }
    # Storage: 100 GiB kept all day = 100 GiB mean; egress 10 GiB.
    assert b.one("SELECT mean_stored_gib FROM storage_growth") == 100.0
    assert b.one("SELECT egress_gib FROM egress_daily") == 10.0
    # Chargeback for October: llm's run 72 (hour 00: 80 - 8), vision's run 40 (half of hour 01).
    # Unallocated idle: hour 01's other half = 40; the bucket's 2.60 is not accelerator idle.
    # Idle shared (proportional, the default): llm floor(40 x 72/112) = 25.714285714; vision the
    # rest, 40 - 25.714285714 = 14.285714286 (the split's remainder nano goes to the last team).
    # Shared: effective 160.80 - allocated 112 - idle 40 = 8.80 (bucket 2.60, egress 1.20, tax 5):
    # llm floor(8.80 x 72/112) = 5.657142857; vision 8.80 - 5.657142857 = 3.142857143.
    rows = {r["team"]: r for r in b.rows("SELECT * FROM team_chargeback")}
    assert rows["llm"]["allocated_cost"] == D("72") and rows["vision"]["allocated_cost"] == D("40")
    assert rows["llm"]["month_unallocated_idle_cost"] == D("40")
    assert rows["llm"]["idle_cost_shared"] == D("25.714285714")
    assert rows["vision"]["idle_cost_shared"] == D("14.285714286")
    assert rows["vision"]["cost_with_idle_shared"] == D("54.285714286")
    assert rows["llm"]["shared_cost"] == D("5.657142857")
    assert rows["vision"]["total_cost"] == D("57.428571429")  # 40 + 14.285714286 + 3.142857143
    assert rows["llm"]["total_cost"] == D("103.371428571")  # 72 + 25.714285714 + 5.657142857
    daily = b.rows(
        "SELECT unallocated_idle_hours, unallocated_idle_cost, idle_cost_share"
        " FROM idle_capacity_daily"
    )[0]
    # 16 GPU-hours paid, 12 held -> 4 idle hours; idle 40 of 152 effective.
    assert daily["unallocated_idle_hours"] == 4.0
    assert daily["unallocated_idle_cost"] == D("40")
    assert abs(daily["idle_cost_share"] - 40 / 152) < 1e-12
