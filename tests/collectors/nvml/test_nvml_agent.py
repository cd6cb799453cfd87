"""The agent on the simulated NVML: 3 minutes x 8 GPUs, and every scenario."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from nvml_fakes import LABELS, minute, run_simulated

# Simulated values come from the captures (collectors/nvml/simulated.py):
# H100 busy power = 632 W + 4 W * sin(...), so every reading lies in [628, 636] W;
# H200 idle power = 77.67 W exactly; one reading per second.


def test_three_minutes_on_eight_gpus(tmp_path: Path) -> None:
    agent, rows = run_simulated(tmp_path, "training", minutes=3)

    assert rows.height == 3 * 8
    assert sorted(set(rows["minute"].to_list())) == [minute(0), minute(1), minute(2)]
    assert rows["samples"].to_list() == [60] * 24  # readings at t = 0..179 s, 60 per minute
    assert set(rows["status"]) == {"ok"}
    assert set(rows["node"]) == {LABELS.node}
    assert set(rows["resource_name"]) == {LABELS.resource_name}
    assert rows["gpu_uuid"].n_unique() == 8
    assert rows["sample_id"].n_unique() == 24
    assert set(rows["gpu_name"]) == {"NVIDIA H100 80GB HBM3"}
    assert rows["util_gpu_pct"].is_between(97, 100).all()
    assert rows["power_w"].is_between(628, 636).all()
    assert set(rows["sm_clock_mhz"]) == {1980.0} and set(rows["mem_clock_mhz"]) == {2619.0}
    assert rows["tensor_active_pct"].is_between(53, 57).all()  # 55 +- 2
    assert set(rows["clock_event_reasons"]) == {0}
    assert set(rows["ecc_errors"]) == {0} and set(rows["xid_errors"]) == {0}
    # Energy: minute 0 has 59 reading-to-reading deltas (the first reading has no
    # predecessor): 59 s * [628, 636] W = [37052, 37524] J. Later minutes: 60 s -> [37680, 38160] J.
    first = rows.filter(pl.col("minute") == minute(0))["energy_j"]
    later = rows.filter(pl.col("minute") > minute(0))["energy_j"]
    assert first.is_between(37052, 37524).all()
    assert later.is_between(37680, 38160).all()
    assert agent.health.samples == 180 * 8
    assert not list(tmp_path.glob(".*"))  # no temp file left


def test_idle_node(tmp_path: Path) -> None:
    _, rows = run_simulated(tmp_path, "idle", minutes=2, gpus=2)
    assert set(rows["util_gpu_pct"]) == {0.0}
    assert set(rows["mem_used_bytes"]) == {0}
    assert set(rows["mem_total_bytes"]) == {143771 * 2**20}  # H200 capture: 143771 MiB
    assert all(abs(p - 77.67) < 1e-9 for p in rows["power_w"])  # mean of 60 x 77.67
    assert set(rows["clock_event_reasons"]) == {1}  # nvmlClocksEventReasonGpuIdle
    assert set(rows["tensor_active_pct"]) == {0.0}
    # Constant 77.67 W: minute 0 = 59 s * 77.67 = 4582.53 J; minute 1 = 60 s * 77.67 = 4660.2 J.
    energy = rows.sort("minute")["energy_j"].to_list()
    assert abs(energy[0] - 4582.53) < 0.01 and abs(energy[2] - 4660.2) < 0.01


def test_counter_not_supported_gives_nulls(tmp_path: Path) -> None:
    _, rows = run_simulated(tmp_path, "not_supported", minutes=1, gpus=2)
    for column in ("power_w", "power_max_w", "energy_j", "ecc_errors", "compute_processes_max"):
        assert rows[column].null_count() == rows.height, column
    assert set(rows["status"]) == {"not_supported"}
    assert rows["util_gpu_pct"].null_count() == 0  # what is supported is still there


def test_gpu_lost_mid_run(tmp_path: Path) -> None:
    _, rows = run_simulated(tmp_path, "gpu_lost", minutes=3)
    lost = rows.filter(pl.col("gpu_index") == 3).sort("minute")
    # GPU 3 is lost from t = 90 s: minute 1 (t = 60..119) has good readings at t = 60..89.
    assert lost["status"].to_list() == ["ok", "lost", "lost"]
    assert lost["samples"].to_list() == [60, 30, 0]
    assert lost["xid_errors"].to_list() == [0, 1, 0]  # XID 79 just before the loss
    assert lost["util_gpu_pct"][2] is None and lost["power_w"][2] is None
    assert lost["gpu_uuid"].n_unique() == 1  # still identified
    others = rows.filter(pl.col("gpu_index") != 3)
    assert set(others["status"]) == {"ok"} and others.height == 21


def test_old_driver_without_gpm(tmp_path: Path) -> None:
    _, rows = run_simulated(tmp_path, "old_driver", minutes=1, gpus=2)
    for column in ("tensor_active_pct", "sm_active_pct", "sm_occupancy_pct", "dram_bw_util_pct"):
        assert rows[column].null_count() == rows.height, column
    assert set(rows["clock_event_reasons"]) == {0}  # from the pre-535 ThrottleReasons name
    assert set(rows["status"]) == {"ok"}  # GPM missing is normal, not "not_supported"


def test_energy_counter_reset_never_goes_negative(tmp_path: Path) -> None:
    _, rows = run_simulated(tmp_path, "energy_reset", minutes=3)
    # The counter drops to 0 at t = 90 s. Minute 1 then still holds 59 or 60 seconds of
    # energy (one second is lost at the reset): >= 59 s * 628 W = 37052 J, <= 60 s * 636 W.
    reset_minute = rows.filter(pl.col("minute") == minute(1))["energy_j"]
    assert reset_minute.is_between(37052, 38160).all()
    assert (rows["energy_j"] >= 0).all()
