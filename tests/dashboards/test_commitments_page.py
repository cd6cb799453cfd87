"""The Commitments page against its marts (commitment_utilisation, unused_capacity)."""

from __future__ import annotations

import pytest

from tests.dashboards.helpers import PAGES, Marts, infos, metric, money


@pytest.fixture(autouse=True)
def _commitments_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PAGES, "commitments", "pages/commitments.py")


def test_commitments_page_matches_its_marts(open_page, marts: Marts) -> None:
    at = open_page("commitments")
    fee, savings, unused, committed, used = marts.rows(
        "SELECT sum(fee), sum(savings), sum(unused_cost), sum(committed_accelerator_hours), "
        "sum(used_accelerator_hours) FROM commitment_utilisation"
    )[0]
    assert fee > 0 and unused > 0
    assert metric(at, "Commitment fee (USD)") == money(fee)
    assert metric(at, "Commitment savings (USD)") == money(savings)
    assert metric(at, "Unused commitment cost (USD)") == money(unused)
    assert metric(at, "Commitment utilisation") == f"{used / committed * 100:.1f}%"
    reserved = marts.one(
        "SELECT sum(unused_cost) FROM unused_capacity WHERE idle_kind = 'unused_reservation'"
    )
    assert metric(at, "Unused reservation cost (USD)") == money(reserved)
    days = at.dataframe[0].value
    assert len(days) == marts.one("SELECT count(*) FROM commitment_utilisation")
    assert days["commitment_fee"].sum() == fee  # Decimal: every digit
    assert set(days["teams"]) <= {
        r[0] for r in marts.rows("SELECT DISTINCT teams FROM commitment_utilisation")
    }
    assert len(at.get("vega_lite_chart")) == 1  # utilisation per day

    # The commitment is to H100s: a TPU filter leaves nothing of it.
    at = open_page("commitments", {"accelerator": "TPU-v6e"})
    assert "No commitments or reservations" in infos(at)


def test_idle_capacity_shows_unused_commitment_and_reservation_beside_idle(
    open_page, marts: Marts
) -> None:
    at = open_page("idle")
    commitment, reservation = marts.rows(
        "SELECT sum(unused_cost) FILTER (WHERE idle_kind = 'unused_commitment'), "
        "sum(unused_cost) FILTER (WHERE idle_kind = 'unused_reservation') FROM unused_capacity"
    )[0]
    # Under their glossary names, as the Commitments page and the CLI headline show them.
    assert metric(at, "Unused commitment cost (USD)") == money(commitment)
    assert metric(at, "Unused reservation cost (USD)") == money(reservation)
    captions = "\n".join(c.value for c in at.caption)
    assert "in none of the shares above" in captions
