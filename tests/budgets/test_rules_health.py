"""Health and efficiency rules on tables written with the Warehouse API, and `flopledger alerts`."""

from datetime import datetime

import pyarrow as pa
import pytest

from flopledger.budgets.alerts import Alert, store_alerts
from flopledger.budgets.budget_file import EfficiencyRule, HealthRules
from flopledger.budgets.efficiency import efficiency_alerts
from flopledger.budgets.health import health_alerts
from flopledger.cli.main import main
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse

NOW = datetime(2026, 10, 11, 6, 0)


@pytest.fixture
def warehouse(project_dir):
    w = open_warehouse(load_config(project_dir / "flopledger.yaml").warehouse)
    w.ensure_schema()
    return w


def gpu_rows(rows: list[tuple]) -> pa.Table:
    keys = (
        "sample_id",
        "minute",
        "node",
        "gpu_uuid",
        "gpu_index",
        "xid_errors",
        "ecc_errors",
        "samples",
        "status",
    )
    return pa.Table.from_pylist([dict(zip(keys, (*r, 60, "ok"), strict=True)) for r in rows])


def probe_rows(rows: list[tuple]) -> pa.Table:
    keys = (
        "result_id",
        "measured_at",
        "node",
        "device_index",
        "backend",
        "dtype",
        "m",
        "n",
        "k",
        "achieved_tflops",
        "verified",
        "probe_version",
    )
    return pa.Table.from_pylist([dict(zip(keys, (*r, True, "1"), strict=True)) for r in rows])


def test_gpu_errors_probe_drops_and_stale_sources(warehouse):
    warehouse.insert_new(
        "gpu_samples",
        gpu_rows(
            [
                ("a", datetime(2026, 10, 10, 3, 0), "n1", "GPU-1", 0, 2, 0),
                (
                    "b",
                    datetime(2026, 10, 10, 3, 1),
                    "n1",
                    "GPU-1",
                    0,
                    1,
                    None,
                ),  # 2 + 1 = 3 XID on 10-10
                ("c", datetime(2026, 10, 10, 3, 1), "n1", "GPU-2", 1, 0, 5),  # 5 ECC
                (
                    "d",
                    datetime(2026, 10, 5, 3, 1),
                    "n2",
                    "GPU-3",
                    0,
                    9,
                    0,
                ),  # older than the 2-day lookback
                (
                    "e",
                    datetime(2026, 10, 10, 4, 0),
                    "n2",
                    "GPU-3",
                    0,
                    None,
                    None,
                ),  # unsupported: no alert
            ]
        ),
        "sample_id",
    )
    # n1 device 0 bf16: best 800 on 10-08, 700 on 10-10: fell 12.5% (> 10%); n2 fell 5%: quiet
    warehouse.insert_new(
        "probe_results",
        probe_rows(
            [
                ("p1", datetime(2026, 10, 8, 1), "n1", 0, "gpu", "bf16", 8192, 8192, 8192, 800.0),
                ("p2", datetime(2026, 10, 10, 1), "n1", 0, "gpu", "bf16", 8192, 8192, 8192, 700.0),
                ("p3", datetime(2026, 10, 8, 1), "n2", 0, "gpu", "bf16", 8192, 8192, 8192, 800.0),
                ("p4", datetime(2026, 10, 10, 1), "n2", 0, "gpu", "bf16", 8192, 8192, 8192, 760.0),
            ]
        ),
        "result_id",
    )
    # gpu_samples' latest minute is 10-10 04:00, 26 h before NOW: stale past 24 h
    rules = HealthRules(stale_after_hours={"nvml_spool": 24, "probes": 48, "gcp_billing": 1})
    alerts = health_alerts(warehouse, rules, NOW)
    assert [a.alert_id for a in alerts] == [
        "health:xid:n1:GPU-1:2026-10-10",
        "health:ecc:n1:GPU-2:2026-10-10",
        "health:probe_drop:n1:0:bf16:2026-10-10",
        "health:stale:nvml_spool:2026-10-11",  # probes 29 h old < 48 h; billing empty: not stale
    ]
    assert alerts[0].title == "3 XID error(s) on n1 GPU-1 on 2026-10-10"
    assert alerts[2].details["drop_pct"] == 12.5  # (1 - 700 / 800) x 100


def test_efficiency_limits():
    rule = EfficiencyRule(name="idle", metric="idle_cost_share", above=0.3, window_days=7)
    [alert] = efficiency_alerts(
        rule, {"ml-prod": 0.45, "ml-dev": 0.3}, NOW.date()
    )  # 0.3 is not above 0.3
    assert alert.alert_id == "efficiency:idle:ml-prod:2026-W41"
    # Named and printed as docs/glossary.md and the dashboards do: a share of cost in percent.
    assert alert.title == "Idle share of cost of ml-prod is 45.0% (above 30.0%)"
    low = EfficiencyRule(name="util", metric="mean_utilisation_pct", below=40)
    assert [
        a.alert_id for a in efficiency_alerts(low, {"llm": 35.0, "vision": 60.0}, NOW.date())
    ] == ["efficiency:util:llm:2026-W41"]


def test_alerts_command_lists_open_alerts_and_exits_0(warehouse, project_dir, capsys):
    config = str(project_dir / "flopledger.yaml")
    assert main(["alerts", "--config", config]) == 0
    assert capsys.readouterr().out == "no open alerts\n"
    alert = Alert(
        "health:xid:n1:GPU-1:2026-10-10",
        "health",
        "xid_errors",
        "critical",
        "3 XID error(s) on n1 GPU-1 on 2026-10-10",
        "gpu_samples.xid_errors summed to 3",
        ["oncall"],
    )
    assert store_alerts(warehouse, [alert, alert], NOW) == 1
    assert store_alerts(warehouse, [alert], NOW) == 0  # the same id again: nothing new
    assert main(["alerts", "--config", config]) == 0
    assert capsys.readouterr().out == (
        "1 open alert(s):\n"
        "CRITICAL 2026-10-11 06:00  3 XID error(s) on n1 GPU-1 on 2026-10-10\n"
        "          gpu_samples.xid_errors summed to 3  [health:xid:n1:GPU-1:2026-10-10]\n"
    )
