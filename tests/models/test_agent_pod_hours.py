"""pod_gpu_hourly: busy and allocated-idle GPU time per pod per hour, from the agent's pod
labels, worked by hand."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from tests.models.conftest import check_sql

HOUR = datetime(2026, 10, 1, 10)


def minute_row(
    gpu: int,
    m: int,
    pod: tuple[str, str, str] | None,
    *,
    sm: float | None = None,
    tensor: float | None = None,
    util: float | None = None,
    status: str = "ok",
) -> dict[str, Any]:
    namespace, name, uid = pod if pod else (None, None, None)
    return {
        "sample_id": f"n1/{gpu}/{m}",
        "minute": HOUR + timedelta(minutes=m),
        "node": "n1",
        "project_id": "ml-prod",
        "resource_name": "a3-vm-1",
        "gpu_uuid": f"GPU-{gpu}",
        "gpu_index": gpu,
        "util_gpu_pct": util,
        "sm_active_pct": sm,
        "tensor_active_pct": tensor,
        "samples": 60 if status == "ok" else 0,
        "status": status,
        "pod_namespace": namespace,
        "pod_name": name,
        "pod_uid": uid,
    }


def rounded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Floats to 9 places (sums of fractions carry binary noise), decimals as floats."""
    return [
        {k: round(float(v), 9) if isinstance(v, float | Decimal) else v for k, v in r.items()}
        for r in rows
    ]


TRAIN = ("ml", "train", "u1")
TRAIN_AGAIN = ("ml", "train", "u3")  # the same name, recreated: another pod
INFER = ("ml", "infer", "u2")


def samples() -> list[dict[str, Any]]:
    rows = []
    for m in range(60):
        rows += [minute_row(g, m, TRAIN, sm=50.0, tensor=20.0, util=100.0) for g in (0, 1)]
        if m < 30:
            rows.append(minute_row(2, m, INFER, util=40.0))  # no GPM: utilization.gpu
        else:
            rows.append(minute_row(2, m, None, util=0.0))
        if m < 10:
            rows.append(minute_row(3, m, None, status="lost"))
        else:
            rows.append(minute_row(3, m, None, util=0.0))
        rows.append(minute_row(4, m, TRAIN_AGAIN, util=100.0))
    return rows


def test_agent_pod_gpu_hours_busy_and_allocated_idle(books) -> None:
    """Node n1, 10:00-11:00, 5 GPUs.

    train (u1): GPUs 0 and 1 all hour, SM activity 50 % (tensor 20 %: the busier GPM figure
      wins) -> observed 2 x 3,600 = 7,200 s, busy 7,200 x 0.5 = 3,600 s, idle 3,600 s.
    infer (u2): GPU 2 minutes 0-29 at utilization.gpu 40 % (no GPM) -> observed 1,800 s,
      busy 1,800 x 0.4 = 720 s, allocated idle 1,080 s.
    train (u3): GPU 4 all hour at 100 % -> 3,600 s observed and busy, idle 0.
    no pod: GPU 2 minutes 30-59 at 0 % (1,800 s) and GPU 3 minutes 10-59 at 0 % (3,000 s)
      -> observed 4,800 s, busy 0, unallocated idle 4,800 s; GPU 3 lost minutes 0-9: 600 s
      unobserved.
    The node hour closes: 7,200 + 1,800 + 3,600 + 4,800 + 600 = 18,000 = 5 GPUs x 3,600 s;
    busy 3,600 + 720 + 3,600 = 7,920 s, as resource_hour_busy says for the VM.
    """
    b = books
    b.warehouse.ensure_schema()
    b._load("gpu_samples", samples())
    b.warehouse.build_mart("pod_gpu_hourly")
    b.warehouse.build_mart("resource_hour_busy")
    got = rounded(
        b.rows(
            "SELECT pod_namespace, pod_name, pod_uid, gpus, observed_gpu_seconds, busy_gpu_seconds, "
            "idle_gpu_seconds, unobserved_gpu_seconds, busy_fraction FROM pod_gpu_hourly "
            "ORDER BY pod_uid NULLS LAST"
        )
    )
    assert got == [
        dict(zip(got[0], ("ml", "train", "u1", 2, 7200.0, 3600.0, 3600.0, 0.0, 0.5), strict=True)),
        dict(zip(got[0], ("ml", "infer", "u2", 1, 1800.0, 720.0, 1080.0, 0.0, 0.4), strict=True)),
        dict(zip(got[0], ("ml", "train", "u3", 1, 3600.0, 3600.0, 0.0, 0.0, 1.0), strict=True)),
        dict(zip(got[0], (None, None, None, 2, 4800.0, 0.0, 4800.0, 600.0, 0.0), strict=True)),
    ]
    keys = b.rows("SELECT DISTINCT project_id, resource_name, node, hour FROM pod_gpu_hourly")
    assert keys == [
        {"project_id": "ml-prod", "resource_name": "a3-vm-1", "node": "n1", "hour": HOUR}
    ]
    total = rounded(
        b.rows(
            "SELECT sum(observed_gpu_seconds + unobserved_gpu_seconds) AS seconds, "
            "sum(busy_gpu_seconds) AS busy, sum(observed_gpu_seconds) AS observed "
            "FROM pod_gpu_hourly"
        )
    )[0]
    assert total == {"seconds": 18000.0, "busy": 7920.0, "observed": 17400.0}
    vm = rounded(
        b.rows(
            "SELECT observed_accelerator_seconds, busy_accelerator_seconds FROM resource_hour_busy"
        )
    )
    assert vm == [{"observed_accelerator_seconds": 17400.0, "busy_accelerator_seconds": 7920.0}]
    # The model's check (pod_hours_close) finds nothing off ...
    assert b.rows(check_sql("pod_hours_close")) == []
    # ... and would see a pod row lost: 5 GPUs x 60 minutes of telemetry, one pod's 7,200 s gone.
    b.warehouse.execute("DELETE FROM pod_gpu_hourly WHERE pod_uid = 'u1'")
    assert b.rows(check_sql("pod_hours_close")) == [{"n": 1}]


def test_agent_pod_gpu_hours_rerun_changes_nothing(books) -> None:
    b = books
    b.warehouse.ensure_schema()
    b._load("gpu_samples", samples())
    b.warehouse.build_mart("pod_gpu_hourly")
    first = b.rows("SELECT * FROM pod_gpu_hourly ORDER BY pod_uid")
    b.warehouse.build_mart("pod_gpu_hourly")
    assert b.rows("SELECT * FROM pod_gpu_hourly ORDER BY pod_uid") == first
