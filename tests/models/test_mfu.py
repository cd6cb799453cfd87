"""MFU (run_mfu) and the accelerator efficiency mart on hand-worked scenarios.

One warehouse is built for the module; each scenario uses resources and runs of its own, so
they do not touch. The arithmetic is in the comments. Spec peak of an H100-80GB in dense
bf16: 989.4 TFLOP/s (the `accelerator_specs` row in tests/models/conftest.py).
test_from_files.py checks that a failed probe is reported by the pipeline's check.
"""

import pytest

from tests.models.conftest import Books
from tests.models.rows import gpu, run, ts

H100_BF16 = 989.4


def gpu_hour(resource, hour="2026-10-01 00"):
    return gpu(hour, 80, resource=resource)  # 8 GPUs x 3,600 s = 28,800 GPU-seconds paid


def probe(node, at, tflops, *, m=8192, verified=True, device=0):
    """One `probe_results` row as the probe CLI writes it; a failed row carries no speed."""

    def speed(value):
        return value if verified else None

    return {
        "result_id": f"{node}/{at}/{device}/{m}",
        "measured_at": ts(at),
        "node": node,
        "device_index": device,
        "device_kind": "NVIDIA H100 80GB HBM3",
        "accelerator_type": "H100-80GB",
        "backend": "gpu",
        "dtype": "bf16",
        "m": m,
        "n": m,
        "k": m,
        "iterations": 100,
        "achieved_tflops": speed(tflops),
        "median_tflops": speed(tflops and tflops * 0.98),
        "spread_pct": speed(2.0),
        "peak_tflops_spec": H100_BF16,
        "peak_source": "spec sheet",
        "efficiency": speed(tflops and tflops / H100_BF16),
        "window_s": 1.0,
        "energy_j": None,
        "tflops_per_w": None,
        "verified": verified,
        "verify_error_ratio": 0.1 if verified else 3.0,
        "failure": None if verified else "wrong answer: 12 entries outside tolerance",
        "jax_version": "0.10.2",
        "probe_version": "1",
    }


def two_nodes(run_id, a, b, **fields):
    return run(
        run_id,
        tokens_in=237_456_000,
        placements=[
            {"resource_name": a, "accelerators": 4},
            {"resource_name": b, "accelerators": 4},
        ],
        **fields,
    )


# Model FLOPs by class: P = 1e9 params, tokens_in = 3e6, tokens_out = 1e6, no placements.
CLASS_RUN = {
    "model_params": 1_000_000_000,
    "tokens_in": 3_000_000,
    "tokens_out": 1_000_000,
    "placements": [],
}
CLASS_RUNS = [
    run("cls-pt", workload_class="pretraining", **CLASS_RUN),
    run("cls-post", workload_class="post_training", **CLASS_RUN),
    run("cls-batch", workload_class="batch_inference", **CLASS_RUN),
    run("cls-online", workload_class="online_inference", **CLASS_RUN),
    run("cls-rl", workload_class="rl_eval", **CLASS_RUN),
    run("cls-other", workload_class="other", **CLASS_RUN),
    run("cls-noparams", workload_class="pretraining", **{**CLASS_RUN, "model_params": None}),
    run("cls-override", model_flops=3.56184e17, gpus=1, resource="solo"),
    # Runs that failed before reading a token: no model FLOPs, so no MFU (not 0%).
    run("cls-failed-pt", workload_class="pretraining", **{**CLASS_RUN, "tokens_in": 0}),
    run("cls-failed-batch", workload_class="batch_inference",
        **{**CLASS_RUN, "tokens_in": 0, "tokens_out": 0}),
]  # fmt: skip

# MFU: node-a and node-b are probed, node-c never is.
MFU_PROBES = [
    probe("node-a", "2026-09-30T03:00:00Z", 850.0),
    probe("node-a", "2026-09-30T03:00:05Z", 700.0, m=4096),
    probe("node-b", "2026-09-30T03:00:00Z", 791.52),
    probe("node-b", "2026-09-30T03:00:05Z", None, m=4096, verified=False),
    probe("node-b", "2026-10-02T03:00:00Z", 500.0),
]

# A tie: node-d and node-e equally fast.
TIE_PROBES = [
    probe("node-e", "2026-09-30T03:00:00Z", 791.52),
    probe("node-d", "2026-09-30T03:00:00Z", 791.52),
]

# Drift: node-x 800 for seven days then 680; node-y 800 then 776 (two devices); node-z's only
# earlier probe is 11 days back.
DRIFT_PROBES = [
    *(probe("node-x", f"2026-09-{d}T03:00:00Z", 800.0) for d in range(24, 31)),
    probe("node-x", "2026-10-01T03:00:00Z", 680.0),
    probe("node-x", "2026-10-01T03:00:05Z", 600.0, m=4096),
    probe("node-y", "2026-09-30T03:00:00Z", 800.0),
    probe("node-y", "2026-10-01T03:00:00Z", 776.0),
    probe("node-y", "2026-10-01T03:00:00Z", 790.0, device=1),
    probe("node-z", "2026-09-20T03:00:00Z", 800.0),
    probe("node-z", "2026-10-01T03:00:00Z", 600.0),
    probe("node-z", "2026-10-01T03:00:09Z", None, m=4096, verified=False),
]


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> Books:
    billing = [gpu_hour(r) for r in ("node-a", "node-b", "node-c", "node-d", "node-e", "solo")]
    runs = [
        two_nodes("pt-ab", "node-a", "node-b"),
        two_nodes("pt-ac", "node-a", "node-c"),
        two_nodes("pt-ed", "node-e", "node-d"),
        *CLASS_RUNS,
    ]
    books = Books(tmp_path_factory.mktemp("mfu"))
    return books.build(billing, runs, probes=[*MFU_PROBES, *TIE_PROBES, *DRIFT_PROBES])


def mfu(ledger, run_id):
    return ledger.rows("SELECT * FROM run_mfu WHERE run_id = ?", [run_id])[0]


def test_training_mfu_against_spec_and_against_the_slowest_node(ledger):
    # An 8B-param pretraining run of 237,456,000 tokens holds 4 GPUs on each of two nodes for one hour.
    # Model FLOPs: 6 x 8e9 x 237,456,000 = 1.1397888e19.
    # Held: 8 GPUs x 3600 s = 28,800 GPU-seconds.
    # Spec: 28,800 x 989.4e12 = 2.849472e19 FLOP possible -> MFU 1.1397888e19 / 2.849472e19 = 40%.
    # Ceilings (best verified bf16 over shapes, on the latest probe day on or before the run's 10-01):
    #   node-a: 850 on 09-30 (its 4096 cube reached only 700)                          -> 850
    #   node-b: 791.52 on 09-30 (the failed row has no speed; 10-02's 500 is after the run) -> 791.52
    # Slowest: node-b, 791.52 = 0.8 x 989.4 -> 28,800 x 791.52e12 = 2.2795776e19 -> MFU 50%.
    row = mfu(ledger, "pt-ab")
    assert (row["model_flops"], row["model_flops_basis"]) == (1.1397888e19, "6ND")
    assert row["held_accelerator_seconds"] == 28800.0
    assert row["peak_tflops_spec"] == H100_BF16
    assert (row["nodes_held"], row["nodes_probed"]) == (2, 2)
    assert (row["slowest_node"], row["measured_peak_tflops"]) == ("node-b", 791.52)
    assert row["mfu_spec_pct"] == pytest.approx(40.0, rel=1e-12)
    assert row["mfu_measured_pct"] == pytest.approx(50.0, rel=1e-12)


def test_a_node_without_probes_leaves_measured_mfu_unknown(ledger):
    # node-a (probed) and node-c (never probed): against spec still 40% (as above); against
    # measured unknown (null, never 0).
    row = mfu(ledger, "pt-ac")
    assert row["mfu_spec_pct"] == pytest.approx(40.0, rel=1e-12)
    assert (row["nodes_held"], row["nodes_probed"]) == (2, 1)
    assert (row["measured_peak_tflops"], row["mfu_measured_pct"]) == (None, None)


def test_of_nodes_equally_slow_the_first_by_name_is_named(ledger):
    # pt-ed holds node-e and node-d, both at 791.52: as pt-ab's figures, 50% against measured;
    # the slowest node is the first by name, node-d, on every build.
    row = mfu(ledger, "pt-ed")
    assert (row["slowest_node"], row["measured_peak_tflops"]) == ("node-d", 791.52)
    assert (row["nodes_held"], row["nodes_probed"]) == (2, 2)
    assert row["mfu_measured_pct"] == pytest.approx(50.0, rel=1e-12)


def test_model_flops_by_workload_class_and_override(ledger):
    # pretraining, post_training: 6 x 1e9 x 3e6 = 1.8e16 (tokens_out not counted).
    # batch_inference, online_inference, rl_eval: 2 x 1e9 x (3e6 + 1e6) = 8e15.
    # other: no rule -> null; pretraining without params -> null; no tokens at all -> null.
    # override: 3.56184e17 given. It held one H100 for an hour: 3,600 s x 989.4e12 = 3.56184e18
    # FLOP possible -> 10% MFU against spec.
    rows = ledger.rows(
        "SELECT run_id, model_flops, model_flops_basis FROM run_mfu WHERE run_id LIKE 'cls-%'"
    )
    assert {r["run_id"]: (r["model_flops"], r["model_flops_basis"]) for r in rows} == {
        "cls-pt": (1.8e16, "6ND"),
        "cls-post": (1.8e16, "6ND"),
        "cls-batch": (8e15, "2ND"),
        "cls-online": (8e15, "2ND"),
        "cls-rl": (8e15, "2ND"),
        "cls-other": (None, None),
        "cls-noparams": (None, None),
        "cls-override": (3.56184e17, "override"),
        "cls-failed-pt": (None, None),
        "cls-failed-batch": (None, None),
    }
    assert mfu(ledger, "cls-override")["mfu_spec_pct"] == pytest.approx(10.0, rel=1e-12)
    assert mfu(ledger, "cls-pt")["mfu_spec_pct"] is None  # held nothing: nothing to divide by


def test_a_node_whose_ceiling_drops_is_flagged(ledger):
    # node-x on 10-01: best 680 (the 4096 cube's 600 is not its best); prior best (09-24 .. 09-30)
    #   800; drop (800 - 680) / 800 = 15% > 10% -> flagged. Efficiency 680 / 989.4 = 68.73%.
    # node-y on 10-01: device 0 best 776, device 1 best 790 -> the node's ceiling is its slowest
    #   device's, 776; drop (800 - 776) / 800 = 3% -> not flagged.
    # node-z on 10-01: its 09-20 probe is more than 7 days back -> no prior, no flag; one failed row.
    day = ledger.rows(
        """SELECT node, devices_probed, results, failed_results, best_tflops, prior_best_tflops,
                  ceiling_drop_pct, ceiling_dropped, efficiency_pct, peak_tflops_spec
           FROM accelerator_efficiency
           WHERE day = DATE '2026-10-01' AND node IN ('node-x', 'node-y', 'node-z')
           ORDER BY node"""
    )
    x, y, z = day
    assert (x["best_tflops"], x["prior_best_tflops"], x["ceiling_dropped"]) == (680.0, 800.0, True)
    assert x["ceiling_drop_pct"] == pytest.approx(15.0, rel=1e-12)
    assert x["efficiency_pct"] == pytest.approx(68000 / 989.4, rel=1e-12)
    assert x["peak_tflops_spec"] == H100_BF16
    assert (y["devices_probed"], y["best_tflops"], y["ceiling_dropped"]) == (2, 776.0, False)
    assert y["ceiling_drop_pct"] == pytest.approx(3.0, rel=1e-12)
    assert (z["prior_best_tflops"], z["ceiling_drop_pct"], z["ceiling_dropped"]) == (
        None,
        None,
        False,
    )
    assert (z["results"], z["failed_results"]) == (2, 1)
    # Flagged anywhere: node-x on 10-01, and node-b on 10-02 (791.52 -> 500, a 36.8% drop).
    flagged = ledger.rows(
        "SELECT node, day FROM accelerator_efficiency WHERE ceiling_dropped ORDER BY day"
    )
    assert [(r["node"], str(r["day"])) for r in flagged] == [
        ("node-x", "2026-10-01"),
        ("node-b", "2026-10-02"),
    ]
