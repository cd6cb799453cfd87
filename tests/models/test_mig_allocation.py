"""MIG slices on the allocation rule, worked by hand (the arithmetic is in the comments).

One 8-GPU H100 VM for one hour: GPU 80 + host 8 = 88 USD for 8 x 3,600 = 28,800 GPU-seconds.
A pod holding a `1g.10gb` slice holds 1/7 of one GPU (accelerators/mig.py); its held
accelerator-nanoseconds are floor(slices x 1 x seconds x 1e9 / 7) per placement and hour.
"""

from decimal import Decimal as D

from tests.models.rows import gpu, host, run


def _slice(run_id: str, slices: int, compute: int) -> dict:
    """A run holding `slices` MIG slices of `compute`/7 of a GPU each, all of hour 00."""
    return run(
        run_id,
        gpus=slices,
        placements=[{"resource_name": "vm-1", "accelerators": slices,
                     "share_numerator": compute, "share_denominator": 7}],
    )  # fmt: skip


def test_mig_slices_hold_their_share_and_the_books_close(books):
    # pod-1g: one 1g.10gb for 3,600 s: H = floor(1 x 1 x 3600e9 / 7) = 514,285,714,285 nanos.
    #   cost = floor(88e9 x 514,285,714,285 / 28,800e9) = floor(1,571,428,571.426...) nanos
    #   = 1.571428571 (exactly 88 / 56 = 1.5714285714...).
    # pod-3g: one 3g.40gb: H = floor(3 x 3600e9 / 7) = 1,542,857,142,857 nanos.
    #   cost = floor(88 x 1,542,857,142,857 / 28,800) nanos = floor(4,714,285,714.285...)
    #   = 4.714285714 (exactly 88 x 3 / 56).
    # pod-7x1g: seven 1g.10gb (a whole GPU): H = 7 x 1 x 3600e9 / 7 = 3,600e9 exactly.
    #   cost = 88 x 3600 / 28800 = 11.
    # Whole GPUs: run-whole holds 2 GPUs: 88 x 7200 / 28800 = 22.
    # Idle = 88 - 1.571428571 - 4.714285714 - 11 - 22 = 48.714285715.
    runs = [
        _slice("pod-1g", 1, 1),
        _slice("pod-3g", 1, 3),
        _slice("pod-7x1g", 7, 1),
        run("run-whole", gpus=2),
    ]
    b = books.build([gpu("2026-10-01 00", 80), host("2026-10-01 00", 8)], runs)
    assert b.run_cost("pod-1g") == D("1.571428571")
    assert b.run_cost("pod-3g") == D("4.714285714")
    assert b.run_cost("pod-7x1g") == D("11")
    assert b.run_cost("run-whole") == D("22")
    assert b.idle("vm-1", "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("48.714285715")
    # Held accelerator-hours: 514.285714285 s / 3600 = 0.142857142857 (1/7 of a GPU-hour).
    held = b.one("SELECT accelerator_hours FROM cost_per_run WHERE run_id = 'pod-1g'")
    assert abs(held - 0.142857142857) < 1e-9
    differences = b.rows("SELECT check_name, difference FROM books")
    assert differences and all(r["difference"] == 0 for r in differences), differences
    assert b.one("SELECT n FROM (SELECT count(*) AS n FROM run_allocation WHERE clipped)") == 0


def test_mig_a_gpu_sliced_past_seven_sevenths_is_clipped_pro_rata(books):
    # A 1-GPU VM (3,600 GPU-seconds paid, cost 7) claimed by eight 1g slices for the hour:
    # each claims H = floor(3600e9 / 7) = 514,285,714,285 nanos; sum H = 8 H =
    # 4,114,285,714,280 > 3,600e9 paid: clipped, D = 8 H, and each run gets
    # floor(7e9 x H / 8 H) = 875,000,000 nanos = 0.875; idle 7 - 8 x 0.875 = 0.
    runs = [_slice(f"pod-{i}", 1, 1) for i in range(8)]
    b = books.build([gpu("2026-10-01 00", 7, seconds=3600)], runs)
    assert [b.run_cost(f"pod-{i}") for i in range(8)] == [D("0.875")] * 8
    assert b.idle("vm-1", "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("0")
    assert b.one("SELECT count(*) FROM run_allocation WHERE clipped") == 8
    differences = b.rows("SELECT difference FROM books")
    assert all(r["difference"] == 0 for r in differences)
