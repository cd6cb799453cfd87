"""Every simulated fleet with TPUs and GPUs runs at least one model on both (issue 22), so the
accelerator portfolio has a side by side to show; a draw that already has one is untouched."""

from __future__ import annotations

from dataclasses import replace

import pytest

from flopledger.simulator.clock import DAY_US
from flopledger.simulator.fleet import build_fleet
from flopledger.simulator.schedule import Run, _on_tpu_and_gpu, build_schedule


def _on_both(runs: list[Run]) -> set[str]:
    tpu = {r.model_name for r in runs if r.accelerator_type.startswith("TPU-")}
    return tpu & {r.model_name for r in runs if not r.accelerator_type.startswith("TPU-")}


# Small one-day fleets whose draw put no model on both before the change (seeds 3, 5, 10, 12
# and 28 with 8 GPUs and 8 chips; 1 and 9 with 16 and 16), and the demo's and tests' sizes.
@pytest.mark.parametrize(
    ("gpus", "chips", "days", "seed"),
    [(8, 8, 1, 3), (8, 8, 1, 5), (8, 8, 1, 10), (8, 8, 1, 12), (8, 8, 1, 28),
     (16, 16, 1, 1), (16, 16, 1, 9), (48, 24, 5, 1), (40, 24, 3, 7)],
)  # fmt: skip
def test_some_model_runs_on_a_tpu_and_a_gpu(gpus: int, chips: int, days: int, seed: int) -> None:
    runs = build_schedule(build_fleet(gpus, chips, 0, days * DAY_US, seed), seed)
    assert _on_both(runs)


def _run(run_id: str, accel: str, model: str, params: int, tokens: int | None, cls: str) -> Run:
    return Run(run_id, run_id, 1, "llm", "ml-prod", cls, "exp", model, params, 0, 0, 3_600,
               "succeeded", accel, 8, tokens, 0, "jobs_file")  # fmt: skip


def test_a_tpu_job_takes_a_gpu_models_name_and_keeps_its_mfu() -> None:
    # The TPU job (two attempts) ran gemma-27b (27e9 params) on 1,000,000 tokens; the GPU run
    # of its class ran llama-70b (70e9). Same model FLOPs: 1,000,000 x 27 / 70 = 385,714 tokens.
    gpu = _run("g", "H100-80GB", "llama-70b", 70_000_000_000, 5, "pretraining")
    tpu = _run("t", "TPU-v5p", "gemma-27b", 27_000_000_000, 1_000_000, "pretraining")
    retry = replace(tpu, run_id="t-2", attempt=2)
    other = _run("o", "TPU-v5p", "llama-8b", 8_000_000_000, 10, "post_training")
    runs = _on_tpu_and_gpu([gpu, tpu, retry, other])
    assert [(r.model_name, r.model_params, r.tokens_in) for r in runs] == [
        ("llama-70b", 70_000_000_000, 5),
        ("llama-70b", 70_000_000_000, 385_714),
        ("llama-70b", 70_000_000_000, 385_714),
        ("llama-8b", 8_000_000_000, 10),
    ]


def test_a_draw_with_a_shared_model_is_left_as_it_was() -> None:
    runs = [
        _run("g", "H100-80GB", "llama-70b", 70_000_000_000, 5, "pretraining"),
        _run("t", "TPU-v5p", "llama-70b", 70_000_000_000, 7, "pretraining"),
    ]
    assert _on_tpu_and_gpu(runs) is runs
    gpu_only = runs[:1]
    assert _on_tpu_and_gpu(gpu_only) is gpu_only
