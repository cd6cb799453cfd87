"""Marts that add up float quantities add them as exact decimals, so the order DuckDB's
threads add rows in cannot change a digit between reruns (issue 14: reruns are
byte-identical). The rows are chosen so that adding in float would lose the small ones:
2^53 + 1 rounds back to 2^53 in a DOUBLE (53-bit mantissa), so 2^53, 1, 1 added in that
order gives 2^53, in another order 2^53 + 2. Exact: always 2^53 + 2."""

from tests.models.rows import gpu, line_item, run

BIG = 2**53  # 9,007,199,254,740,992 bytes (8 PiB): the DOUBLE's last exact whole number


def _egress(amount):
    return line_item(sku="Network Internet Data Transfer Out from Americas to Americas",
                     resource=None, cost="1", labels={"team": "llm"}, usage_amount=amount,
                     usage_unit="bytes")  # fmt: skip


def _stored(amount):
    return line_item(sku="Standard Storage US Multi-region", resource="ckpt", cost="1",
                     service="Cloud Storage", labels={"team": "llm"}, usage_amount=amount,
                     usage_unit="byte-seconds")  # fmt: skip


def test_egress_and_storage_add_bytes_exactly(books):
    billing = [gpu("2026-10-01 00", 80), *map(_egress, (BIG, 1, 1)), *map(_stored, (BIG, 1, 1))]
    b = books.build(billing, [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")])
    # (2^53 + 2) bytes / 2^30 = 2^23 + 2^-29 GiB, exact in a DOUBLE; a float sum gave 2^23.
    assert b.one("SELECT egress_gib FROM egress_daily") == 2**23 + 2**-29
    # (2^53 + 2) byte-seconds over a day and over a month (2,629,746 s), one division each.
    row = b.rows("SELECT mean_stored_gib, gibibyte_months FROM storage_growth")[0]
    assert row["mean_stored_gib"] == (BIG + 2) / (1073741824.0 * 86400.0)
    assert row["gibibyte_months"] == (BIG + 2) / (1073741824.0 * 2629746.0)
