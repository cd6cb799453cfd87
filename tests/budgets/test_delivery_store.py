"""The delivery store: two notifiers at once post each (alert, channel) pair once; the record
survives a new process and is copied into a warehouse's alerts table; reading never makes it."""

import json
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from flopledger.budgets.alerts import Alert, store_alerts
from flopledger.budgets.budget_file import BudgetsFile
from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.budgets.notify import deliver_pending, record_deliveries, undelivered
from flopledger.warehouse.duckdb import DuckDBWarehouse

NOW = datetime(2026, 10, 11, 6, 0)
BUDGETS = BudgetsFile.model_validate(
    {
        "channels": {
            "a": {"kind": "json", "url_env": "HOOK_A"},
            "b": {"kind": "slack", "url_env": "HOOK_B"},
        }
    }
)
ENV = {"HOOK_A": "http://a.invalid/secret", "HOOK_B": "http://b.invalid/secret"}


def _alert(n: int, channels: list[str]) -> Alert:
    return Alert(f"health:x:{n}:2026-10-10", "health", "x", "warning", f"t{n}", f"m{n}", channels)


class Rows:
    """A source that answers the open-alerts query with fixed rows (as a snapshot would)."""

    def __init__(self, alerts: list[Alert]) -> None:
        self.rows = [
            {
                "alert_id": a.alert_id,
                "kind": a.kind,
                "subject": a.subject,
                "severity": a.severity,
                "title": a.title,
                "message": a.message,
                "details": "{}",
                "channels": a.channels,
                "raised_at": NOW,
                "notified_at": None,
                "deliveries": None,
            }
            for a in alerts
        ]

    def query(self, sql: str, params: Any = None) -> pa.Table:
        return pa.Table.from_pylist(self.rows)


def test_two_notifiers_at_once_post_each_pair_once(tmp_path: Path) -> None:
    source = Rows([_alert(n, ["a", "b"]) for n in range(6)])
    store = DeliveryStore(tmp_path / "home" / "alert_deliveries.sqlite")
    posted: list[tuple[str, str]] = []
    lock = threading.Lock()

    def slow_post(url: str, payload: dict[str, Any]) -> None:
        time.sleep(0.02)  # long enough that the two notifiers overlap
        with lock:
            posted.append((url, json.dumps(payload, sort_keys=True)))

    outcomes = []
    threads = [
        threading.Thread(
            target=lambda: outcomes.append(
                deliver_pending(source, store, BUDGETS, ENV, NOW, post=slow_post)
            )
        )
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 6 alerts x 2 channels = 12 pairs, each posted exactly once between the two notifiers
    assert len(posted) == 12
    assert len(set(posted)) == 12
    assert sum(len(o.sent) for o in outcomes) == 12
    assert undelivered(source, store) == []
    # A third notifier, later (a new process: only the file is shared), posts nothing.
    again = deliver_pending(source, DeliveryStore(store.path), BUDGETS, ENV, NOW, post=slow_post)
    assert (again.sent, again.failed, len(posted)) == ([], [], 12)


def test_a_failed_post_waits_its_backoff_and_nothing_is_written_when_a_post_raises(
    tmp_path: Path,
) -> None:
    source = Rows([_alert(1, ["a"])])
    store = DeliveryStore(tmp_path / "alert_deliveries.sqlite")
    first = deliver_pending(source, store, BUDGETS, ENV, NOW, post=lambda url, p: "HTTP 503")
    assert first.failed == ["health:x:1:2026-10-10 -> a"]
    record = store.states(["health:x:1:2026-10-10"])["health:x:1:2026-10-10"]["a"]
    # backoff after the first failure: 60 s
    assert record == {
        "attempts": 1,
        "delivered_at": None,
        "next_attempt_at": (NOW + timedelta(seconds=60)).isoformat(),
        "last_error": "HTTP 503",
    }

    def boom(url: str, payload: dict[str, Any]) -> None:
        raise RuntimeError("the process died mid-post")

    later = NOW + timedelta(seconds=61)
    with pytest.raises(RuntimeError):
        deliver_pending(source, store, BUDGETS, ENV, later, post=boom)
    after = store.states(["health:x:1:2026-10-10"])["health:x:1:2026-10-10"]["a"]
    assert after == record  # rolled back: the next tick tries again
    done = deliver_pending(source, store, BUDGETS, ENV, later, post=lambda url, p: None)
    assert done.sent == ["health:x:1:2026-10-10 -> a"]


def test_reading_never_creates_the_store(tmp_path: Path) -> None:
    store = DeliveryStore(tmp_path / "nowhere" / "alert_deliveries.sqlite")
    assert store.states(["x"]) == {}
    assert not store.path.parent.exists()


def test_the_record_is_copied_into_the_alerts_table(tmp_path: Path) -> None:
    warehouse = DuckDBWarehouse(tmp_path / "w.duckdb")
    warehouse.ensure_schema()
    store_alerts(warehouse, [_alert(1, ["a", "b"]), _alert(2, ["a"])], NOW)
    store = DeliveryStore(tmp_path / "alert_deliveries.sqlite")
    t1, t2 = NOW + timedelta(minutes=1), NOW + timedelta(minutes=2)
    deliver_pending(
        warehouse, store, BUDGETS, {"HOOK_A": ENV["HOOK_A"]}, t1, post=lambda u, p: None
    )
    deliver_pending(warehouse, store, BUDGETS, ENV, t2, post=lambda u, p: None)
    assert record_deliveries(warehouse, store) == 2
    rows = {
        r["alert_id"]: r
        for r in warehouse.query("SELECT alert_id, notified_at, deliveries FROM alerts").to_pylist()
    }
    # alert 1: channel a at t1, b at t2 (its URL was missing at t1) -> notified at t2
    one = rows["health:x:1:2026-10-10"]
    assert one["notified_at"] == t2
    assert {c: r["delivered_at"] for c, r in json.loads(one["deliveries"]).items()} == {
        "a": t1.isoformat(),
        "b": t2.isoformat(),
    }
    assert rows["health:x:2:2026-10-10"]["notified_at"] == t1
    assert record_deliveries(warehouse, store) == 0  # nothing open is left to copy
