"""Per-minute aggregation, with every expected number worked out by hand."""

from __future__ import annotations

import polars as pl
from nvml_fakes import LABELS, minute
from polars.testing import assert_frame_equal

from flopledger.collectors.nvml.aggregate import MinuteAggregator, counter_delta, minute_start
from flopledger.collectors.nvml.sampler import Reading

GIB = 2**30


def _r(index: int = 0, **values: object) -> Reading:
    return Reading(index, f"GPU-{index}", "NVIDIA H100 80GB HBM3", **values)  # type: ignore[arg-type]


def test_means_maxima_and_counter_deltas() -> None:
    agg = MinuteAggregator(LABELS)
    agg.add(
        minute(0),
        [
            _r(
                util_gpu_pct=90.0,
                power_w=600.0,
                energy_mj=1_000_000,
                mem_used_bytes=10 * GIB,
                clock_event_reasons=0,
                ecc_errors_total=7,
                xid_events=0,
                sm_active_pct=None,
            )
        ],
    )
    agg.add(
        minute(0),
        [
            _r(
                util_gpu_pct=100.0,
                power_w=650.0,
                energy_mj=1_650_000,
                mem_used_bytes=20 * GIB,
                clock_event_reasons=4,
                ecc_errors_total=7,
                xid_events=1,
                sm_active_pct=50.0,
            )
        ],
    )
    agg.add(
        minute(0),
        [
            _r(
                util_gpu_pct=80.0,
                power_w=700.0,
                energy_mj=2_350_000,
                mem_used_bytes=30 * GIB,
                clock_event_reasons=1,
                ecc_errors_total=9,
                xid_events=0,
                sm_active_pct=70.0,
            )
        ],
    )
    # Minute 1: the energy counter was reset (driver reload) and so was the ECC counter.
    agg.add(
        minute(1),
        [
            _r(
                util_gpu_pct=50.0,
                power_w=640.0,
                energy_mj=2_000,
                mem_used_bytes=20 * GIB,
                ecc_errors_total=0,
                xid_events=0,
            )
        ],
    )
    agg.add(
        minute(1),
        [
            _r(
                util_gpu_pct=70.0,
                power_w=700.0,
                energy_mj=702_000,
                mem_used_bytes=20 * GIB,
                ecc_errors_total=1,
                xid_events=0,
            )
        ],
    )
    assert agg.close(before=minute(0)) == []  # nothing finished yet
    rows = pl.DataFrame(agg.close(before=minute(2)))

    expected = pl.DataFrame(
        {
            "minute": [minute(0), minute(1)],
            # (90 + 100 + 80) / 3 = 90, max 100 | (50 + 70) / 2 = 60, max 70
            "util_gpu_pct": [90.0, 60.0],
            "util_gpu_max_pct": [100.0, 70.0],
            # (600 + 650 + 700) / 3 = 650, max 700 | (640 + 700) / 2 = 670, max 700
            "power_w": [650.0, 670.0],
            "power_max_w": [700.0, 700.0],
            # minute 0: first reading has no predecessor; (1_650_000 - 1_000_000)
            #   + (2_350_000 - 1_650_000) = 1_350_000 mJ = 1350 J
            # minute 1: 2_000 < 2_350_000 so the counter restarted: 2_000, then
            #   702_000 - 2_000 = 700_000; 702_000 mJ = 702 J
            "energy_j": [1350.0, 702.0],
            # (10 + 20 + 30) / 3 = 20 GiB = 21_474_836_480 bytes, max 30 GiB
            "mem_used_bytes": [20 * GIB, 20 * GIB],
            "mem_used_max_bytes": [30 * GIB, 20 * GIB],
            # 0 | 4 | 1 = 5; minute 1 never read the reasons -> null
            "clock_event_reasons": [5, None],
            # ECC 7, 7, 9 -> 0 + 0 + 2 = 2 | reset to 0 (counts as 0 new), then 1 -> 1
            "ecc_errors": [2, 1],
            "xid_errors": [1, 0],
            # GPM: (50 + 70) / 2 = 60 (the unknown first reading is skipped, not a 0)
            "sm_active_pct": [60.0, None],
            "samples": [3, 2],
            "status": ["ok", "ok"],
        }
    )
    assert_frame_equal(rows.select(expected.columns), expected, check_dtypes=False)


def test_lost_and_not_supported_status() -> None:
    agg = MinuteAggregator(LABELS)
    ok = {"util_gpu_pct": 100.0, "mem_used_bytes": GIB, "power_w": 600.0, "energy_mj": 1}
    agg.add(minute(0), [_r(0, **ok), _r(1, **ok), _r(2, util_gpu_pct=100.0, mem_used_bytes=GIB)])
    agg.add(minute(0), [_r(0, **ok), Reading(1, "GPU-1", None, "lost"), _r(2, util_gpu_pct=99.0)])
    rows = pl.DataFrame(agg.close(before=minute(1))).sort("gpu_index")
    assert rows["status"].to_list() == ["ok", "lost", "not_supported"]
    assert rows["samples"].to_list() == [2, 1, 2]  # the lost reading is not a sample
    assert rows["power_w"].to_list() == [600.0, 600.0, None]  # never 0 for unknown
    assert rows["util_gpu_pct"][2] == 99.5  # (100 + 99) / 2


def test_counter_delta_and_minute_start() -> None:
    assert counter_delta(1_000, 1_500) == 500
    assert counter_delta(1_000, 300) == 300  # reset: restarted from 0
    # 1_784_016_125 s = 2026-07-14 08:02:05 UTC -> minute 08:02:00
    assert minute_start(1_784_016_125.0) == minute(2)
    # a 10-second test "minute": 08:02:05 falls in the bucket starting 08:02:00
    assert minute_start(1_784_016_125.0, minute_s=10) == minute(2)
