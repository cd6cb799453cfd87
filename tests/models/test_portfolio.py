"""The accelerator portfolio (accelerator_portfolio, model_portfolio), worked by hand.

One UTC hour, 2026-10-01 00, three resources:
- vm-1, 8 H100s, 80.00 for the hour (28,800 GPU-seconds). Run "g" (online_inference,
  llama-70b) holds 4 GPUs all hour: 4 accelerator-hours, cost 80 x 4/8 = 40. NVML: the first 4
  GPUs busy at 80% SM activity, the others idle -> busy 4 x 3,600 x 0.8 = 11,520 s = 3.2 h of
  the 4 h held (80%); allocated idle 40 x 0.2 = 8; nobody held the other 4 GPUs: unallocated
  idle 40. A probe measured 625 TFLOP/s bf16 on vm-1 (and 600 on another day: the best counts).
- vm-2, 8 H100s, 80.00, held all hour by "b" (batch_inference, llama-8b); no telemetry.
- v5p-a, 16 v5p chips, 67.20, held all hour by "t" (online_inference, llama-70b): TensorCore
  utilisation 50% -> busy 8 of 16 chip-hours; allocated idle 33.60. No probe measured a v5p.
"""

from datetime import datetime, timedelta
from decimal import Decimal as D

import pytest

from flopledger.cli.portfolio_lines import portfolio_lines
from tests.models.conftest import Books, check_sql
from tests.models.rows import gpu, run, tpu
from tests.models.test_mfu import probe
from tests.models.test_utilisation import _gpu_minutes


def _tpu_minutes(start: datetime, util_pct: float) -> list[dict]:
    """4 workers x 4 chips of v5p-a, every minute of the hour at `util_pct`."""
    return [
        {
            "minute": start + timedelta(minutes=m),
            "project_id": "ml-prod",
            "zone": "us-east5-a",
            "node_id": "v5p-a",
            "resource_name": "v5p-a",
            "worker_id": str(w),
            "accelerator_id": str(c),
            "monitored_resource_type": "tpu_worker",
            "tensorcore_util_pct": util_pct,
        }
        for w in range(4)
        for c in range(4)
        for m in range(60)
    ]


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Books:
    hour = datetime(2026, 10, 1)
    billing = [
        gpu("2026-10-01 00", 80, resource="vm-1"),
        gpu("2026-10-01 00", 80, resource="vm-2"),
        tpu("2026-10-01 00", "67.20", "v5p-a"),
    ]
    inference = {"workload_class": "online_inference", "model_name": "llama-70b",
                 "model_params": 70_000_000_000}  # fmt: skip
    runs = [
        run("g", gpus=4, tokens_in=30_000_000, tokens_out=10_000_000, **inference),
        run("b", resource="vm-2", workload_class="batch_inference", tokens_in=100_000_000),
        run("t", gpus=16, resource="v5p-a", accelerator_type="TPU-v5p",
            tokens_in=150_000_000, tokens_out=50_000_000, **inference),
    ]  # fmt: skip
    probes = [
        probe("vm-1", "2026-09-30T03:00:00Z", 625.0),
        probe("vm-1", "2026-09-29T03:00:00Z", 600.0),
    ]
    return Books(tmp_path_factory.mktemp("portfolio")).build(
        billing,
        runs,
        gpu_samples=_gpu_minutes(hour, 4, 80.0, 700.0, 70.0),
        tpu_samples=_tpu_minutes(hour, 50.0),
        probes=probes,
    )


def _row(ledger: Books, family: str, workload_class: str) -> dict:
    rows = ledger.rows(
        "SELECT * FROM accelerator_portfolio WHERE family = ? AND workload_class = ?",
        [family, workload_class],
    )
    assert len(rows) == 1
    return rows[0]


def test_cost_per_delivered_pflop_hour_and_busy_share_of_a_probed_family(ledger):
    row = _row(ledger, "H100-80GB", "online_inference")
    assert str(row["month"]) == "2026-10-01" and row["venue"] == "self_hosted"
    assert row["runs"] == 1
    assert row["paid_accelerator_hours"] == 4.0
    assert row["busy_accelerator_hours"] == pytest.approx(3.2)  # 11,520 s / 3,600
    assert row["busy_pct"] == pytest.approx(80.0)  # 3.2 / 4
    assert row["effective_cost"] == D("40")
    assert row["effective_cost_per_accelerator_hour"] == D("10")  # 40 / 4
    # Effective cost includes the allocated idle (8 of 40) and not the unallocated (40).
    assert row["allocated_idle_cost"] == D("8") and row["allocated_idle_share"] == 0.2
    # The H100 family's month: 160 paid (vm-1 and vm-2), 40 of it held by no run.
    assert row["family_unallocated_idle_cost"] == D("40")
    assert row["unallocated_idle_share"] == 0.25
    # Best measured 625 TFLOP/s: 3.2 busy hours x 625 / 1000 = 2 PFLOP-hours; 40 / 2 = 20.
    assert row["best_measured_tflops"] == 625.0
    assert row["delivered_pflop_hours"] == pytest.approx(2.0)
    assert row["cost_per_delivered_pflop_hour"] == D("20")
    assert row["tokens"] == 40_000_000
    assert row["cost_per_million_tokens"] == D("1")  # 40 / 40


def test_a_family_no_probe_measured_has_no_pflop_figure(ledger):
    row = _row(ledger, "TPU-v5p", "online_inference")
    assert row["busy_pct"] == pytest.approx(50.0)  # 8 of 16 chip-hours
    assert row["effective_cost_per_accelerator_hour"] == D("4.2")  # 67.20 / 16
    assert row["allocated_idle_cost"] == D("33.60") and row["allocated_idle_share"] == 0.5
    assert row["family_unallocated_idle_cost"] == D("0") and row["unallocated_idle_share"] == 0
    assert row["best_measured_tflops"] is None
    assert row["cost_per_delivered_pflop_hour"] is None  # measured figures only
    assert row["cost_per_million_tokens"] == D("0.336")  # 67.20 / 200


def test_runs_without_telemetry_have_no_busy_share(ledger):
    row = _row(ledger, "H100-80GB", "batch_inference")
    assert row["effective_cost"] == D("80") and row["paid_accelerator_hours"] == 8.0
    assert row["busy_pct"] is None and row["allocated_idle_cost"] is None
    assert row["cost_per_delivered_pflop_hour"] is None


def test_cost_per_family_and_class_sums_to_the_runs_cost(ledger):
    # 40 + 80 + 67.20 = 187.20, in the mart and in cost_per_run; the check's query says 0.
    total = ledger.one(
        "SELECT sum(effective_cost) FROM accelerator_portfolio WHERE venue = 'self_hosted'"
    )
    assert total == D("187.20")
    assert ledger.one("SELECT sum(effective_cost) FROM cost_per_run") == D("187.20")
    assert ledger.rows(check_sql("portfolio_sums_to_the_runs")) == []


def test_one_model_on_two_families_side_by_side(ledger):
    # llama-70b online: TPU-v5p 67.20 / 200 Mtok = 0.336; H100 40 / 40 Mtok = 1.000, which is
    # 1 / 0.336 = 2.976... times the cheapest. llama-8b ran on one family only: not listed.
    rows = ledger.rows("SELECT * FROM model_portfolio ORDER BY cost_per_million_tokens")
    assert [(r["model"], r["family"]) for r in rows] == [
        ("llama-70b", "TPU-v5p"),
        ("llama-70b", "H100-80GB"),
    ]
    tpu_side, gpu_side = rows
    assert tpu_side["cost_per_million_tokens"] == D("0.336") and tpu_side["cheapest"] is True
    assert gpu_side["cost_per_million_tokens"] == D("1") and gpu_side["cheapest"] is False
    assert gpu_side["cheapest_cost_per_million_tokens"] == D("0.336")
    assert gpu_side["times_cheapest"] == pytest.approx(1 / 0.336)
    assert {(r["families"], r["families_in_class"]) for r in rows} == {(2, 2)}
    assert {r["workload_class"] for r in rows} == {"online_inference"}


def test_the_printout_says_where_each_workload_ran_cheapest(ledger):
    # online_inference: TPU-v5p 0.336 per M tokens over 200 M tokens, 50% busy, no probe (no PFLOP figure); next
    # H100 at 1.000 = 2.976 -> 3.0x. batch_inference: only H100 (80 / 100 Mtok = 0.8).
    lines = portfolio_lines(ledger.warehouse, "USD")
    assert lines[1].startswith("where should this workload run, 2026-10")
    rows = [line.split() for line in lines[3:]]
    assert rows == [
        ["batch_inference", "H100-80GB", "0.8000", "100.0", "-", "-", "only", "one", "family"],
        [
            "online_inference",
            "TPU-v5p",
            "0.3360",
            "200.0",
            "50%",
            "-",
            "H100-80GB",
            "1.0000",
            "(3.0x)",
        ],
    ]


def test_an_absurd_ceiling_leaves_the_figure_empty_instead_of_failing(books):
    # A probe row claiming 1e-30 TFLOP/s: 3.2 busy hours x 1e-30 / 1000 = 3.2e-33 PFLOP-hours,
    # 40 / 3.2e-33 = 1.25e34 USD, past DECIMAL(38, 9): null, and the mart still builds.
    b = books.build(
        [gpu("2026-10-01 00", 80)],
        [run("g", gpus=4, tokens_in=40_000_000)],
        gpu_samples=_gpu_minutes(datetime(2026, 10, 1), 4, 80.0, 700.0, 70.0),
        probes=[probe("vm-1", "2026-09-30T03:00:00Z", 1e-30)],
    )
    row = b.rows("SELECT * FROM accelerator_portfolio")[0]
    assert row["best_measured_tflops"] == 1e-30
    assert row["cost_per_delivered_pflop_hour"] is None
    assert row["mean_mfu_measured_pct"] is None  # an MFU of ~1e34 percent is no mean
    assert row["effective_cost"] == D("40")


def _request(rid: str, model: str, prompt: int, spend: str) -> dict:
    """One `managed_requests` row as the gateway reader loads it (priced by the gateway)."""
    at = datetime(2026, 10, 1, 10)
    return {
        "request_id": rid, "started_at": at, "ended_at": at + timedelta(seconds=2),
        "first_token_at": None, "provider": "together_ai", "model": model,
        "provider_model": f"together_ai/{model}", "team": "search", "api_key_alias": "k",
        "end_user": None, "workload_class": "online_inference", "call_type": "acompletion",
        "status": "success", "cache_hit": False, "prompt_tokens": prompt, "cached_tokens": 0,
        "completion_tokens": 0, "spend": D(spend), "source_file": "g.ndjson", "source_line": 1,
    }  # fmt: skip


def test_a_model_on_our_gpus_and_through_a_provider_side_by_side(books):
    # Self-hosted: llama-70b online on all 8 GPUs of vm-1 for the hour, 80.00 for 40 M tokens
    # = 2.00 per M. Managed: two together_ai requests of 1 M prompt tokens at 0.60 each = 1.20
    # for 2 M = 0.60 per M, the cheapest; 2.00 / 0.60 = 3.33x. A llama-8b request (0.10 for
    # 1 M) ran nowhere else: in accelerator_portfolio, not side by side.
    b = books.build(
        [gpu("2026-10-01 00", 80)],
        [run("g", workload_class="online_inference", model_name="llama-70b",
             tokens_in=30_000_000, tokens_out=10_000_000)],
    )  # fmt: skip
    b._load(
        "managed_requests",
        [
            _request("r1", "llama-70b", 1_000_000, "0.60"),
            _request("r2", "llama-70b", 1_000_000, "0.60"),
            _request("r3", "llama-8b", 1_000_000, "0.10"),
        ],
    )
    b.build_marts()
    side = b.rows("SELECT * FROM model_portfolio ORDER BY cost_per_million_tokens")
    assert [(r["venue"], r["family"], r["cost_per_million_tokens"]) for r in side] == [
        ("managed", "together_ai", D("0.6")),
        ("self_hosted", "H100-80GB", D("2")),
    ]
    assert [r["cheapest"] for r in side] == [True, False]
    assert side[1]["times_cheapest"] == pytest.approx(2 / 0.6)
    managed = b.rows("SELECT * FROM accelerator_portfolio WHERE venue = 'managed'")
    assert len(managed) == 1
    assert managed[0]["family"] == "together_ai" and managed[0]["requests"] == 3
    assert managed[0]["effective_cost"] == D("1.30") and managed[0]["tokens"] == 3_000_000
    assert managed[0]["cost_per_million_tokens"] == D("0.433333333")  # 1.30 / 3, truncated
    assert managed[0]["paid_accelerator_hours"] is None and managed[0]["runs"] is None
    # The check compares the self-hosted rows only: managed spend is not on the cloud bill.
    assert b.rows(check_sql("portfolio_sums_to_the_runs")) == []
