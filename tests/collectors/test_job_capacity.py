"""A run that holds more accelerators on one resource than any machine of its type has is
quarantined whole, with the count and the limit in its reason: from the jobs file, from
Slurm's sacct --json and from Kubernetes pods alike. Never clipped."""

import json

from flopledger.collectors.jobs.read import read_jobs_files
from flopledger.collectors.kubernetes.read import read_pod_files
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from tests.collectors.kubernetes.k8s_fakes import pod
from tests.conftest import run_record, write_ndjson

BILLION = 1_000_000_000
H100_MACHINE = "the largest H100-80GB machine: accelerators/machines.py"


def _read(tmp_path, records, limits=DEFAULT_LIMITS):
    return read_jobs_files([write_ndjson(tmp_path / "runs.jsonl", records)], limits)


def test_a_billion_gpus_on_one_node_is_quarantined_whole(tmp_path):
    huge = run_record(
        "huge",
        accelerator_count=BILLION,
        placements=[{"resource_name": "a3-node-1", "accelerators": BILLION}],
    )
    read = _read(tmp_path, [huge, run_record("ok")])
    assert read.jobs["run_id"].to_pylist() == ["ok"]
    assert read.placements["run_id"].to_pylist() == ["ok"]  # none of huge's, not a clipped one
    assert [q.reason for q in read.quarantined] == [
        f"placements[0] (a3-node-1): 1,000,000,000 H100-80GB on one resource at once, "
        f"more than 8 ({H100_MACHINE})"
    ]


def test_placements_on_one_node_add_up_while_they_overlap(tmp_path):
    # Two 8-GPU placements of one node: 00:00-01:00 and 00:30-01:30 overlap (16 at 00:30), so
    # that run is quarantined; 00:00-00:30 then 00:30-01:00 never hold more than 8 at once.
    def twice(run_id, first_end, second_start, second_end):
        return run_record(
            run_id,
            ended_at=second_end,
            accelerator_count=16,
            placements=[
                {"resource_name": "vm", "accelerators": 8, "end": first_end},
                {"resource_name": "vm", "accelerators": 8, "start": second_start},
            ],
        )

    overlapping = twice(
        "overlap", "2026-10-01T01:00:00Z", "2026-10-01T00:30:00Z", "2026-10-01T01:30:00Z"
    )
    back_to_back = twice(
        "in-turn", "2026-10-01T00:30:00Z", "2026-10-01T00:30:00Z", "2026-10-01T01:00:00Z"
    )
    read = _read(tmp_path, [overlapping, back_to_back])
    assert read.jobs["run_id"].to_pylist() == ["in-turn"]
    assert [q.reason for q in read.quarantined] == [
        f"placements[1] (vm): 16 H100-80GB on one resource at once, more than 8 ({H100_MACHINE})"
    ]


def test_mig_slices_count_their_share_of_a_gpu(tmp_path):
    # 56 1g.10gb slices are 56/7 = 8 GPUs (a full node); 57 are 8 1/7, more than 8.
    def slices(run_id, n):
        placement = {"resource_name": "vm", "accelerators": n}
        placement |= {"share_numerator": 1, "share_denominator": 7}
        return run_record(run_id, accelerator_count=n, placements=[placement])

    read = _read(tmp_path, [slices("full", 56), slices("over", 57)])
    assert read.jobs["run_id"].to_pylist() == ["full"]
    assert [q.reason for q in read.quarantined] == [
        f"placements[0] (vm): 8 1/7 H100-80GB on one resource at once, more than 8 ({H100_MACHINE})"
    ]


def test_a_tpu_resource_may_be_a_whole_slice_up_to_the_largest(tmp_path):
    # A jobs file's resource may be a Cloud TPU node: a v5p slice of 16x16x16 = 4,096 chips
    # is real; the largest v5p slice is 16x16x24 = 6,144 chips, so 8,192 on one node is not.
    def v5p(run_id, chips):
        return run_record(
            run_id,
            accelerator_type="TPU-v5p",
            accelerator_count=chips,
            placements=[{"resource_name": "tpu-v5p-node", "accelerators": chips}],
        )

    read = _read(tmp_path, [v5p("slice", 4096), v5p("too-big", 8192)])
    assert read.jobs["run_id"].to_pylist() == ["slice"]
    assert [q.reason for q in read.quarantined] == [
        "placements[0] (tpu-v5p-node): 8,192 TPU-v5p on one resource at once, more than 6,144 "
        "(the largest TPU-v5p slice: accelerators/machines.py)"
    ]


def test_a_run_of_no_known_type_is_bounded_by_the_configurable_limit(tmp_path):
    def untyped(accelerators):
        return run_record(
            f"untyped-{accelerators}",
            accelerator_type=None,
            accelerator_count=accelerators,
            placements=[{"resource_name": "vm", "accelerators": accelerators}],
        )

    read = _read(tmp_path, [untyped(64), untyped(65)])
    assert read.jobs["run_id"].to_pylist() == ["untyped-64"]
    assert [q.reason for q in read.quarantined] == [
        "placements[0] (vm): 65 accelerators on one resource at once, more than 64 "
        "(limits.max_accelerators_per_node)"
    ]
    wider = _read(tmp_path, [untyped(65)], Limits(max_accelerators_per_node=128))
    assert wider.jobs["run_id"].to_pylist() == ["untyped-65"] and wider.quarantined == []


def test_a_run_that_never_started_cannot_ask_for_more_than_every_node_holds(tmp_path):
    # No placements (still queued), but it asks for a billion H100s: at most
    # max_nodes_per_job (4,096) nodes of 8 = 32,768 could ever hold it.
    pending = run_record(
        "pending",
        started_at=None,
        ended_at=None,
        status="running",
        accelerator_count=BILLION,
        placements=[],
    )
    read = _read(tmp_path, [pending])
    assert read.jobs.num_rows == 0
    assert [q.reason for q in read.quarantined] == [
        "accelerator_count: 1,000,000,000 H100-80GB, more than limits.max_nodes_per_job (4,096) "
        f"x 8 on each ({H100_MACHINE}) = 32,768"
    ]


def test_a_slurm_job_of_a_billion_gpus_is_quarantined(tmp_path):
    # sacct's gres/gpu count 1e9 over nodes gpu[1-2]: 500,000,000 on each host.
    def job(job_id, gpus):
        return {
            "job_id": job_id,
            "cluster": "hpc",
            "account": "llm",
            "state": {"current": ["COMPLETED"]},
            "time": {"submission": 1790812800, "start": 1790812800, "end": 1790816400},
            "nodes": "gpu[1-2]",
            "tres": {
                "allocated": [
                    {"type": "gres", "name": "gpu", "id": 1001, "count": gpus},
                    {"type": "gres", "name": "gpu:h100", "id": 1002, "count": gpus},
                ]
            },
        }

    path = tmp_path / "sacct.json"
    path.write_text(json.dumps({"meta": {}, "errors": [], "jobs": [job(1, 16), job(2, BILLION)]}))
    read = read_jobs_files([path])
    assert read.jobs["run_id"].to_pylist() == ["slurm-hpc-1"]  # 8 on each of two hosts
    assert sorted(read.placements["accelerators"].to_pylist()) == [8, 8]
    assert [q.reason for q in read.quarantined] == [
        "placements[0] (gpu1): 500,000,000 H100-80GB on one node at once, more than 8 "
        f"({H100_MACHINE})"
    ]


def test_a_pod_asking_for_a_billion_gpus_is_quarantined(tmp_path):
    def gpu_pod(name, gpus):
        return pod(
            name,
            labels={"run_id": name},
            node="gke-a3-node-1",
            scheduled="2026-10-01T00:00:00Z",
            started="2026-10-01T00:00:00Z",
            finished="2026-10-01T01:00:00Z",
            phase="Succeeded",
            resources={"limits": {"nvidia.com/gpu": str(gpus)}},
            node_selector={"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
        )

    path = tmp_path / "pods.json"
    path.write_text(json.dumps({"kind": "List", "items": [gpu_pod("train", 4),
                                                          gpu_pod("huge", BILLION)]}))  # fmt: skip
    read = read_pod_files([path])
    assert read.jobs["run_id"].to_pylist() == ["train"]
    assert read.placements["run_id"].to_pylist() == ["train"]
    assert [q.reason for q in read.quarantined] == [
        "run huge: placements[0] (gke-a3-node-1): 1,000,000,000 H100-80GB on one node at once, "
        f"more than 8 ({H100_MACHINE})"
    ]
