"""A settings change takes effect from the first day of the open month: the closed months keep
the chargeback they were built with, by an incremental build and a full rebuild alike
(ingest/settings_history.py; the models read the values in force per day and per month).

Two months, loaded day by day as the sources load them. Each month, on its first day: vm-1's
80 USD GPU hour held by an llm run, a 40 USD GPU hour held by a vision run, a 30 USD bucket
(shared), and a 12 USD bucket labelled job=<the vision run> (no run_id label: shared while
run_label_key is run_id). On 2026-10-15 the config changes to chargeback_policy even and
run_label_key job, and a 6 USD bucket arrives for that day.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal as D
from pathlib import Path

import pytest

from flopledger.ingest.settings_history import open_month, read_history, record, restate
from tests.models.conftest import SETTINGS, SPECS, check_sql
from tests.models.rows import gpu, line_item, run
from tests.warehouse.test_incremental import Scenario, build_marts, full_rebuild_differs

NEW = {**SETTINGS, "chargeback_policy": "even", "run_label_key": "job"}
OLD = {**SETTINGS, "chargeback_policy": "proportional"}


def _bucket(hour: str, cost: str, **kw) -> dict:
    return line_item(sku="Standard Storage US Multi-region", resource="ckpt", cost=cost,
                     service="Cloud Storage", hour=hour, **kw)  # fmt: skip


def _month(day: str, llm: str, vision: str) -> tuple[list[dict], list[dict]]:
    billing = [
        {"row_id": f"{day}/gpu-0", **gpu(f"{day} 00", 80)},
        {"row_id": f"{day}/gpu-1", **gpu(f"{day} 01", 40)},
        {"row_id": f"{day}/bucket", **_bucket(f"{day} 02", "30")},
        {"row_id": f"{day}/labelled", **_bucket(f"{day} 03", "12", labels={"job": vision})},
    ]
    runs = [
        run(llm, f"{day}T00:00:00Z", f"{day}T01:00:00Z", team="llm"),
        run(vision, f"{day}T01:00:00Z", f"{day}T02:00:00Z", team="vision"),
    ]
    return billing, runs


class Books(Scenario):
    def settle_with(self, settings: dict[str, str], now: datetime) -> None:
        with self.held():
            record(self.warehouse, settings, now, settle_days=5)
            self._load("accelerator_specs", SPECS)
            from flopledger.ingest.gcp_billing.skus import classify_unclassified

            classify_unclassified(self.warehouse)
            build_marts(self.warehouse)

    def chargeback(self) -> dict[tuple[str, str], tuple[str, D]]:
        rows = self.rows("SELECT month, team, policy, total_cost FROM team_chargeback")
        return {(f"{r['month']:%Y-%m}", r["team"]): (r["policy"], r["total_cost"]) for r in rows}


# September under proportional (weights: llm 80, vision 40, W 120); the 12 USD labelled
# job=vis-9 is shared, run_label_key being run_id: shared 30 + 12 = 42.
#   llm floor(42 x 80 / 120) = 28 -> 80 + 28 = 108; vision 42 - 28 = 14 -> 40 + 14 = 54.
SEPTEMBER = {
    ("2026-09", "llm"): ("proportional", D("108")),
    ("2026-09", "vision"): ("proportional", D("54")),
}


@pytest.fixture
def books(tmp_path: Path) -> Books:
    """September and October 1 loaded and built under the old settings, then October 15
    under the new ones (one incremental build each)."""
    b = Books(tmp_path)
    with b.held():
        b.warehouse.ensure_schema()
        for day, llm, vision in (
            ("2026-09-01", "llm-9", "vis-9"),
            ("2026-10-01", "llm-10", "vis-10"),
        ):
            b.load_day(*_month(day, llm, vision))
            b.settle_with(OLD, datetime(2026, 10, 2))
        assert b.chargeback()[("2026-10", "llm")] == ("proportional", D("108"))
        b.load_day([{"row_id": "late-bucket", **_bucket("2026-10-15 05", "6")}], [])
        b.settle_with(NEW, datetime(2026, 10, 16))
    return b


def test_a_change_takes_effect_from_the_open_month(books: Books, tmp_path: Path):
    # October, the open month (the newest day loaded is 2026-10-15), from its first day: under
    # run_label_key job the 12 USD row labelled job=vis-10 goes to vis-10 (vision allocated
    # 40 + 12 = 52); shared 30 + 6 = 36, even: 18 each. llm 80 + 18 = 98; vision 52 + 18 = 70.
    # Sum 168 = 80 + 40 + 30 + 12 + 6.
    assert books.chargeback() == {
        **SEPTEMBER,
        ("2026-10", "llm"): ("even", D("98")),
        ("2026-10", "vision"): ("even", D("70")),
    }
    assert books.rows(check_sql("chargeback_sums_to_the_bill")) == []
    history = sorted(
        (r["key"], r["value"], r["effective_from"])
        for r in read_history(books.warehouse)
        if r["key"] in ("chargeback_policy", "run_label_key")
    )
    assert history == [
        ("chargeback_policy", "even", date(2026, 10, 1)),
        ("chargeback_policy", "proportional", None),
        ("run_label_key", "job", date(2026, 10, 1)),
        ("run_label_key", "run_id", None),
    ]
    # A full rebuild reads the same history: September stays as it was.
    assert full_rebuild_differs(books.warehouse, tmp_path) == {}


def test_restating_from_september_moves_the_change_back(books: Books, tmp_path: Path):
    # The open month at 2026-10-16: the newest day's (2026-10-15); at 2026-12-02 (settle days
    # 5), November: October closed on 2026-11-06, and no change reaches back into it.
    assert open_month(books.warehouse, datetime(2026, 10, 16), 5) == date(2026, 10, 1)
    assert open_month(books.warehouse, datetime(2026, 12, 2), 5) == date(2026, 11, 1)
    with books.held():
        changes = restate(books.warehouse, NEW, date(2026, 9, 1), datetime(2026, 12, 2), "restate")
        build_marts(books.warehouse)
    assert {c.describe() for c in changes} == {
        "chargeback_policy: proportional, even (from 2026-10-01) -> even",
        "run_label_key: run_id, job (from 2026-10-01) -> job",
    }
    # September now: the 12 USD labelled job=vis-9 goes to vis-9 (vision 40 + 12 = 52), shared
    # 30 split evenly: 15 each. llm 80 + 15 = 95; vision 52 + 15 = 67. Sum 162.
    assert books.chargeback() == {
        ("2026-09", "llm"): ("even", D("95")),
        ("2026-09", "vision"): ("even", D("67")),
        ("2026-10", "llm"): ("even", D("98")),
        ("2026-10", "vision"): ("even", D("70")),
    }
    assert full_rebuild_differs(books.warehouse, tmp_path) == {}
