"""commitment_demand_hourly on a hand-worked scenario (docs/commitments.md).

vm-1 (8 H100s, us-central1) is billed for hours 00 to 03 (28,800 GPU-s = 8 GPU-hours each);
vm-2 (8 H100s, europe-west4) for hour 02 only.
- run "a" holds 8 GPUs of vm-1 in hours 00 and 01; it succeeds.
- run "b" asks for 4 GPUs, is submitted 00:30 and starts 02:15 on vm-1, ends 03:00, fails.
  Queued: 00:30-01:00 = 0.5 h x 4 = 2 GPU-h in hour 00; 4 in hour 01; 0.25 h x 4 = 1 in hour 02.
  Its region is that of vm-1, where it ran: us-central1.
  Failed: it held 4 of vm-1's 8 paid GPUs from 02:15 to 03:00: 0.75 h x 4 = 3 GPU-h in hour 02.
- run "c" asks for 2 GPUs, submitted 03:00, started 03:00: no queue.
Hour 03 on vm-1 nobody holds (8 paid, unallocated idle).
Demand, us-central1: 00: 8 + 2 = 10; 01: 8 + 4 = 12; 02: 8 + 1 = 9; 03: 8 (c held 2 of them).
europe-west4: 00 and 01: 0 (every hour of the span is there); 02: 8; 03: 0.
No telemetry: busy is null, and nothing counts as held with telemetry.
"""

from decimal import Decimal as D

from flopledger import models
from tests.models.conftest import check_sql
from tests.models.rows import gpu, host, run

H = 3_600_000_000_000  # one accelerator-hour in accelerator-seconds x 1e9


def test_demand_is_paid_plus_queued_per_type_region_and_hour(books) -> None:
    billing = [
        *(gpu(f"2026-10-01 0{h}", 98) for h in range(4)),
        *(host(f"2026-10-01 0{h}", 8) for h in range(4)),
        gpu("2026-10-01 02", 98, resource="vm-2", region="europe-west4"),
    ]
    runs = [
        run("a-1", "2026-10-01T00:00:00Z", "2026-10-01T02:00:00Z"),
        run("b-1", "2026-10-01T02:15:00Z", "2026-10-01T03:00:00Z", gpus=4,
            submitted_at="2026-10-01T00:30:00Z", status="failed"),
        run("c-1", "2026-10-01T03:00:00Z", "2026-10-01T04:00:00Z", gpus=2),
    ]  # fmt: skip
    b = books.build(billing, runs)
    got = b.rows(
        "SELECT region, hour::VARCHAR AS hour, paid_accelerator_nanos AS paid, "
        "queued_accelerator_nanos AS queued, demand_accelerator_nanos AS demand, "
        "failed_accelerator_nanos AS failed, busy_accelerator_hours AS busy "
        "FROM commitment_demand_hourly WHERE accelerator_type = 'H100-80GB' ORDER BY 1, 2"
    )
    assert got == [
        {"region": "europe-west4", "hour": "2026-10-01 00:00:00", "paid": 0, "queued": 0, "demand": 0, "failed": 0, "busy": None},
        {"region": "europe-west4", "hour": "2026-10-01 01:00:00", "paid": 0, "queued": 0, "demand": 0, "failed": 0, "busy": None},
        {"region": "europe-west4", "hour": "2026-10-01 02:00:00", "paid": 8 * H, "queued": 0, "demand": 8 * H, "failed": 0, "busy": None},
        {"region": "europe-west4", "hour": "2026-10-01 03:00:00", "paid": 0, "queued": 0, "demand": 0, "failed": 0, "busy": None},
        {"region": "us-central1", "hour": "2026-10-01 00:00:00", "paid": 8 * H, "queued": 2 * H, "demand": 10 * H, "failed": 0, "busy": None},
        {"region": "us-central1", "hour": "2026-10-01 01:00:00", "paid": 8 * H, "queued": 4 * H, "demand": 12 * H, "failed": 0, "busy": None},
        {"region": "us-central1", "hour": "2026-10-01 02:00:00", "paid": 8 * H, "queued": 1 * H, "demand": 9 * H, "failed": 3 * H, "busy": None},
        {"region": "us-central1", "hour": "2026-10-01 03:00:00", "paid": 8 * H, "queued": 0, "demand": 8 * H, "failed": 0, "busy": None},
    ]  # fmt: skip
    # Queued hours add up to cost_per_run's queue: b waited 1.75 h x 4 GPUs = 7 GPU-h.
    queue = b.one("SELECT sum(queue_seconds * accelerator_count) / 3600 FROM cost_per_run")
    assert queue == 7
    assert b.one("SELECT sum(queued_accelerator_nanos) FROM commitment_demand_hourly") == 7 * H
    # Paid hours add up to idle_capacity's: 4 x 8 + 8 = 40 GPU-h.
    assert b.one("SELECT sum(paid_accelerator_hours) FROM idle_capacity") == 40
    assert b.one("SELECT sum(paid_accelerator_nanos) FROM commitment_demand_hourly") == 40 * H
    # Held: a 8 + 8, b 3, c 2 = 21 GPU-h.
    held = b.one("SELECT sum(allocated_accelerator_hours) FROM commitment_demand_hourly")
    assert D(str(held)) == 21
    # The model's check (commitment_demand_reconciles) finds nothing unreconciled.
    assert b.rows(check_sql("commitment_demand_reconciles")) == []


def test_the_window_query_and_todays_commitment(books) -> None:
    """commitment_demand_window keeps the hours after the last hour less $days days."""
    billing = [gpu(f"2026-10-0{d} 0{h}", 98) for d in (1, 2) for h in (0, 5)]
    b = books.build(billing, [])
    rows = b.warehouse.query(models.query_sql("commitment_demand_window"), {"days": 1}).to_pylist()
    # The span is 10-01 00:00 .. 10-02 05:00 (30 hours); one day back from 10-02 05:00 keeps
    # 10-01 06:00 .. 10-02 05:00: 24 hours, of which 10-02 00 and 05 are paid (8 GPU-h each).
    assert len(rows) == 24
    assert sum(r["demand_accelerator_nanos"] for r in rows) == 16 * H
    assert b.warehouse.query(models.query_sql("commitments_in_force")).to_pylist() == []


def test_mig_queued_demand_is_the_slices_share_of_a_gpu(books) -> None:
    """A run asking for MIG slices queues for their share of a GPU, not one GPU per slice.

    vm-1 (8 H100s) is billed for hours 00 to 02 (8 GPU-h each).
    - run "m" asks for four 1g.10gb slices (1/7 of a GPU each: jobs.accelerator_count 4);
      submitted 00:00, started 01:30, ends 02:30. Share = (4 x 1/7) / 4 = 1/7, so it waits
      for 4 x 1/7 = 4/7 of a GPU (the bug counted 4 GPUs: 7x too much).
      Its queue in all: floor(5,400e9 ns x 4 / 7) = floor(3,085,714,285,714.28) = 3,085,714,285,714
      (6/7 GPU-h). Hour 00 (3,600 s): floor(3,600e9 x 4 / 7) = 2,057,142,857,142;
      hour 01 (1,800 s) takes the rest: 3,085,714,285,714 - 2,057,142,857,142 = 1,028,571,428,572
      (running sums, so the hours add up to the run's queue).
    - run "x" asks for 3 slices on two placements, two 3g.40gb (3/7) and one 1g.10gb (1/7):
      share = (2 x 3/7 + 1 x 1/7) / 3 = 1/3, so 3 slices x 1/3 = 1 whole GPU; submitted 00:00,
      started 01:00: 1 GPU-h queued, all in hour 00.
    - run "w" asks for 2 whole GPUs, submitted 01:00, started 02:00: 2 GPU-h in hour 01.
    Queued: hour 00 = 2,057,142,857,142 + H; hour 01 = 1,028,571,428,572 + 2 H; hour 02 = 0.
    """
    billing = [*(gpu(f"2026-10-01 0{h}", 98) for h in range(3))]
    mig = {"share_denominator": 7}
    runs = [
        run("m-1", "2026-10-01T01:30:00Z", "2026-10-01T02:30:00Z", gpus=4,
            submitted_at="2026-10-01T00:00:00Z",
            placements=[{"resource_name": "vm-1", "accelerators": 4, "share_numerator": 1, **mig}]),
        run("x-1", "2026-10-01T01:00:00Z", "2026-10-01T02:00:00Z", gpus=3,
            submitted_at="2026-10-01T00:00:00Z",
            placements=[{"resource_name": "vm-1", "accelerators": 2, "share_numerator": 3, **mig},
                        {"resource_name": "vm-1", "accelerators": 1, "share_numerator": 1, **mig}]),
        run("w-1", "2026-10-01T02:00:00Z", "2026-10-01T03:00:00Z", gpus=2,
            submitted_at="2026-10-01T01:00:00Z"),
    ]  # fmt: skip
    b = books.build(billing, runs)
    got = b.rows(
        "SELECT hour::VARCHAR AS hour, queued_accelerator_nanos AS queued "
        "FROM commitment_demand_hourly WHERE accelerator_type = 'H100-80GB' ORDER BY 1"
    )
    assert got == [
        {"hour": "2026-10-01 00:00:00", "queued": 2_057_142_857_142 + H},
        {"hour": "2026-10-01 01:00:00", "queued": 1_028_571_428_572 + 2 * H},
        {"hour": "2026-10-01 02:00:00", "queued": 0},
    ]
    # m's queue is 6/7 of a GPU-hour (floored to the nanosecond), not 4 x 1.5 = 6 GPU-h.
    assert 2_057_142_857_142 + 1_028_571_428_572 == 3_085_714_285_714 == 6 * H // 7
    assert b.rows(check_sql("commitment_demand_reconciles")) == []


def test_runs_that_never_started_queue_until_they_end_or_the_span_ends(books) -> None:
    """Queued demand of runs that never started is work the fleet did not serve (issue 20's d_h).

    vm-1 (8 H100s) is billed for hours 00 to 02: the span ends at 03:00.
    - run "a" asks for 4 GPUs, submitted 00:00, started 00:30: 0.5 h x 4 = 2 GPU-h in hour 00.
    - run "p" asks for 2 GPUs, submitted 00:30, still pending (no start, no end): it waits to
      the end of the span, 03:00: 0.5 h x 2 = 1 GPU-h in hour 00, 2 in hour 01, 2 in hour 02.
    - run "q" asks for 4 GPUs, submitted 01:00, cancelled in the queue at 01:45:
      0.75 h x 4 = 3 GPU-h in hour 01.
    - run "r" asks for 1 GPU, submitted 02:00, timed out in the queue at 02:15:
      0.25 h x 1 = 0.25 GPU-h in hour 02.
    Queued: hour 00 = 2 + 1 = 3 GPU-h; hour 01 = 2 + 3 = 5; hour 02 = 2 + 0.25 = 2.25 (10.25 in
    all; the bug counted only a's 2). cost_per_run.queue_seconds is null for p, q and r, so the
    reconciliation counts their queue from jobs the same way.
    """
    billing = [*(gpu(f"2026-10-01 0{h}", 98) for h in range(3))]
    runs = [
        run("a-1", "2026-10-01T00:30:00Z", "2026-10-01T01:30:00Z", gpus=4,
            submitted_at="2026-10-01T00:00:00Z"),
        run("p-1", None, None, gpus=2, submitted_at="2026-10-01T00:30:00Z",
            status="pending", placements=[]),
        run("q-1", None, "2026-10-01T01:45:00Z", gpus=4, submitted_at="2026-10-01T01:00:00Z",
            status="cancelled", placements=[]),
        run("r-1", None, "2026-10-01T02:15:00Z", gpus=1, submitted_at="2026-10-01T02:00:00Z",
            status="timed_out", placements=[]),
    ]  # fmt: skip
    b = books.build(billing, runs)
    got = b.rows(
        "SELECT hour::VARCHAR AS hour, queued_accelerator_nanos AS queued "
        "FROM commitment_demand_hourly WHERE accelerator_type = 'H100-80GB' ORDER BY 1"
    )
    assert got == [
        {"hour": "2026-10-01 00:00:00", "queued": 3 * H},
        {"hour": "2026-10-01 01:00:00", "queued": 5 * H},
        {"hour": "2026-10-01 02:00:00", "queued": 9 * H // 4},
    ]
    nulls = b.rows("SELECT run_id FROM cost_per_run WHERE queue_seconds IS NULL ORDER BY run_id")
    assert [r["run_id"] for r in nulls] == ["p-1", "q-1", "r-1"]
    assert b.rows(check_sql("commitment_demand_reconciles")) == []
