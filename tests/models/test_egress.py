"""egress_daily and spend_daily's network category read each billing row's stored network
traffic (collectors/sku_rules.csv's network rules): real GCP SKU wordings, old and new, by hand."""

from decimal import Decimal as D

from tests.models.rows import gpu, line_item, run

GIB = 1073741824


def _net(sku, cost, gib, service="Compute Engine", team="llm"):
    return line_item(sku=sku, resource=None, cost=cost, service=service, labels={"team": team},
                     usage_amount=gib * GIB, usage_unit="bytes")  # fmt: skip


def test_network_skus_as_gcp_names_them(books):
    billing = [
        gpu("2026-10-01 00", 80),
        # Today's wording, the pre-2024 wording, inter-region, Cloud Storage's download SKU.
        _net("Network Internet Data Transfer Out from Americas to Americas", "1.20", 10),
        _net("Network Internet Egress from Americas to Americas", "0.12", 1),
        _net("Network Inter Region Data Transfer Out from Americas to EMEA", "0.16", 2),
        _net("Download Worldwide Destinations (excluding Asia & Australia)", "0.60", 5,
             service="Cloud Storage", team="vision"),
        # Free intra-zone traffic is network, not egress.
        _net("Network Intra Zone Data Transfer", "0", 7),
        # Not network: storage and a core.
        line_item(sku="Standard Storage US Multi-region", resource="ckpt", cost="2.60",
                  service="Cloud Storage"),
        line_item(sku="A3 Instance Core running in Americas", cost="4"),
    ]  # fmt: skip
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    rows = b.rows(
        "SELECT team, traffic, is_egress, egress_gib, billing_rows, effective_cost"
        " FROM egress_daily ORDER BY team, traffic"
    )
    # internet: 10 + 1 GiB, 1.20 + 0.12 = 1.32 in two rows.
    assert rows == [
        {"team": "llm", "traffic": "inter_region", "is_egress": True, "egress_gib": 2.0,
         "billing_rows": 1, "effective_cost": D("0.16")},
        {"team": "llm", "traffic": "internet", "is_egress": True, "egress_gib": 11.0,
         "billing_rows": 2, "effective_cost": D("1.32")},
        {"team": "llm", "traffic": "intra_zone", "is_egress": False, "egress_gib": 7.0,
         "billing_rows": 1, "effective_cost": D("0")},
        {"team": "vision", "traffic": "download", "is_egress": True, "egress_gib": 5.0,
         "billing_rows": 1, "effective_cost": D("0.60")},
    ]  # fmt: skip
    # spend_daily's network category is the same rows: 0.16 + 1.32 + 0 + 0.60 = 2.08;
    # the bucket stays storage (2.60) and the core compute (4).
    spend = {
        r["category"]: r["cost"]
        for r in b.rows(
            "SELECT category, sum(effective_cost) AS cost FROM spend_daily GROUP BY category"
        )
    }
    assert spend == {
        "accelerator": D("80"),
        "network": D("2.08"),
        "storage": D("2.60"),
        "compute": D("4"),
    }
