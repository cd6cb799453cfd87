"""Busy fraction, allocated idle and energy from telemetry, worked by hand.

Telemetry is written as `gpu_samples` and `tpu_samples` rows (one per accelerator-minute),
as the NVML spool reader and the Cloud Monitoring reader load them.
"""

from datetime import datetime, timedelta
from decimal import Decimal as D

from tests.models.rows import gpu, run, tpu


def _gpu_minutes(
    start: datetime, busy_gpus: int, sm_active_pct: float, busy_w: float, idle_w: float
) -> list[dict]:
    """8 GPUs x 60 minutes; the first `busy_gpus` busy at `sm_active_pct`, the rest idle."""
    rows = []
    for m in range(60):
        for i in range(8):
            busy = i < busy_gpus
            watts = busy_w if busy else idle_w
            rows.append(
                {
                    "minute": start + timedelta(minutes=m),
                    "node": "vm-1",
                    "project_id": "ml-prod",
                    "resource_name": "vm-1",
                    "gpu_uuid": f"GPU-{i}",
                    "gpu_index": i,
                    "gpu_name": "NVIDIA H100 80GB HBM3",
                    "util_gpu_pct": 100.0 if busy else 0.0,
                    "sm_active_pct": sm_active_pct if busy else 0.0,
                    "tensor_active_pct": sm_active_pct / 2 if busy else 0.0,
                    "power_w": watts,
                    "energy_j": watts * 60,
                    "samples": 60,
                    "status": "ok",
                }
            )
    return rows


def test_gpu_busy_fraction_allocated_idle_and_energy(books):
    samples = _gpu_minutes(datetime(2026, 10, 1), 4, 75.0, 700.0, 70.0)
    # Hour 00: GPU row 80 for 28,800 paid GPU-seconds. The run holds 4 GPUs all hour: 14,400 s
    # -> 40. Telemetry: 8 GPUs x 3,600 s observed = 28,800 s; busy (SM activity, GPM)
    # = 4 x 3,600 x 0.75 = 10,800 s. Busy fraction of what runs held: 10,800 / 14,400 = 0.75
    # -> allocated idle 40 x 0.25 = 10. Nobody held the other 4 GPUs: unallocated idle 40.
    # Energy: 4 x 60 min x 700 W x 60 s + 4 x 60 x 70 x 60 = 10,080,000 + 1,008,000
    # = 11,088,000 J; the run's share (0.5) = 5,544,000 J = 1.54 kWh; 1e9 tokens
    # -> 1.54 / 1000 = 0.00154 kWh per M tokens.
    held = run("r", gpus=4, tokens_in=1_000_000_000)
    b = books.build([gpu("2026-10-01 00", 80)], [held], gpu_samples=samples)
    row = b.rows("SELECT * FROM cost_per_run")[0]
    assert row["effective_cost"] == D("40")
    assert row["busy_accelerator_hours"] == 3.0  # 14,400 x 0.75 / 3,600
    assert row["mean_utilisation_pct"] == 75.0
    assert row["telemetry_coverage"] == 1.0 and row["no_telemetry"] is False
    assert row["allocated_idle_cost"] == D("10")
    assert abs(row["energy_kwh"] - 1.54) < 1e-9
    assert abs(row["energy_kwh_per_million_tokens"] - 0.00154) < 1e-12
    idle = b.idle("vm-1", "2026-10-01 00:00:00")
    assert idle["busy_accelerator_hours"] == 3.0
    assert idle["allocated_idle_cost"] == D("10")
    assert idle["unallocated_idle_cost"] == D("40")
    assert idle["busy_source"] == "gpm_sm_active"


def test_tpu_busy_fraction_from_tensorcore_utilisation(books):
    start = datetime(2026, 10, 1)
    # 4 workers x 4 chips, each minute of the hour at 50% TensorCore utilisation.
    samples = [
        {
            "minute": start + timedelta(minutes=m),
            "project_id": "ml-prod",
            "zone": "us-east5-a",
            "node_id": "v5p-a",
            "resource_name": "v5p-a",
            "worker_id": str(w),
            "accelerator_id": str(c),
            "monitored_resource_type": "tpu_worker",
            "tensorcore_util_pct": 50.0,
        }
        for w in range(4)
        for c in range(4)
        for m in range(60)
    ]
    # 16 chips, 67.20 for the hour, held by one run. TensorCore utilisation 50% on every
    # chip-minute: busy = 16 x 3,600 x 0.5 = 28,800 of 57,600 held -> 0.5 -> allocated idle
    # 67.20 x 0.5 = 33.60.
    held = run("t", gpus=16, resource="v5p-a", accelerator_type="TPU-v5p")
    b = books.build([tpu("2026-10-01 00", "67.20", "v5p-a")], [held], tpu_samples=samples)
    row = b.rows("SELECT * FROM cost_per_run")[0]
    assert row["allocated_idle_cost"] == D("33.60")
    assert row["mean_utilisation_pct"] == 50.0
    assert row["energy_kwh"] is None  # TPUs report no energy
    assert b.idle("v5p-a", "2026-10-01 00:00:00")["busy_source"] == "tpu_tensorcore_util"


def test_the_busy_source_of_most_minutes_ties_in_a_fixed_order(books):
    # Hour 00: GPUs 0-3 show more SM than tensor activity (gpm_sm_active), GPUs 4-7 more tensor
    # (gpm_tensor_active): 240 minutes each, a tie, which goes to the first of the documented
    # order, gpm_sm_active. Hour 01: GPUs 0-2 SM, 3-7 tensor: 180 against 300 -> tensor.
    def minutes(hour: int, sm_gpus: int) -> list[dict]:
        rows = _gpu_minutes(datetime(2026, 10, 1, hour), 8, 60.0, 700.0, 70.0)
        for row in rows:
            if int(row["gpu_uuid"].split("-")[1]) >= sm_gpus:
                row["sm_active_pct"], row["tensor_active_pct"] = 30.0, 60.0
        return rows

    samples = minutes(0, 4) + minutes(1, 3)
    b = books.build([gpu("2026-10-01 00", 80), gpu("2026-10-01 01", 80)], [], gpu_samples=samples)
    assert b.idle("vm-1", "2026-10-01 00:00:00")["busy_source"] == "gpm_sm_active"
    assert b.idle("vm-1", "2026-10-01 01:00:00")["busy_source"] == "gpm_tensor_active"


def test_without_telemetry_the_columns_say_so(books):
    b = books.build([gpu("2026-10-01 00", 80)], [run("r")])
    row = b.rows("SELECT * FROM cost_per_run")[0]
    assert row["telemetry_coverage"] == 0.0 and row["no_telemetry"] is True
    assert row["busy_accelerator_hours"] is None and row["allocated_idle_cost"] is None


def test_telemetry_that_learnt_its_project_mid_hour_counts_once(books):
    # 30 minutes of samples without a project, then 30 with one, for one $80 resource-hour that
    # a run held (8 GPUs) all hour: one idle_capacity row, busy 8 x 3,600 x 0.75 -> 0.75
    # -> idle 80 x 0.25 = 20.
    rows = _gpu_minutes(datetime(2026, 10, 1), 8, 75.0, 700.0, 70.0)
    for row in rows:
        if row["minute"].minute < 30:
            row["project_id"] = None
    b = books.build([gpu("2026-10-01 00", 80)], [run("r")], gpu_samples=rows)
    idle = b.rows("SELECT * FROM idle_capacity")
    assert len(idle) == 1
    assert idle[0]["effective_cost"] == D("80") and idle[0]["allocated_idle_cost"] == D("20")
    assert b.one("SELECT mean_utilisation_pct FROM cost_per_run") == 75.0
