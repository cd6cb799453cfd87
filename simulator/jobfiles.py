"""The jobs file (JSONL, one run a line, a file per submission day) and Slurm's `sacct --json`."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from flopledger.simulator.clock import US, day_of, iso_text
from flopledger.simulator.schedule import SLURM_CLUSTER, Run

SLURM_STATE = {
    "succeeded": "COMPLETED",
    "failed": "FAILED",
    "cancelled": "CANCELLED",
    "running": "RUNNING",
}
SLURM_GRES = {"H200-141GB": "h200", "H100-80GB": "h100"}


def _placement(p: Any) -> dict[str, Any]:
    return {
        "resource_name": p.resource_name,
        "project_id": p.project_id,
        "accelerators": p.accelerators,
        "start": iso_text(p.start_us),
        "end": None if p.end_us is None else iso_text(p.end_us),
    }


def run_record(run: Run) -> dict[str, Any]:
    """A run as the jobs file's record (collectors/jobs/records.py)."""
    return {
        "run_id": run.run_id,
        "job_id": run.job_id,
        "attempt": run.attempt,
        "team": run.team,
        "project_id": run.project_id,
        "workload_class": run.workload_class,
        "experiment_id": run.experiment_id,
        "model_name": run.model_name,
        "model_params": run.model_params,
        "submitted_at": iso_text(run.submitted_us),
        "started_at": iso_text(run.started_us),
        "ended_at": None if run.ended_us is None else iso_text(run.ended_us),
        "status": run.status,
        "accelerator_type": run.accelerator_type,
        "accelerator_count": run.accelerator_count,
        "tokens_in": run.tokens_in,
        "tokens_out": run.tokens_out,
        "labels": {"experiment": run.experiment_id, "retry": str(run.attempt > 1).lower()},
        "placements": [_placement(p) for p in run.placements],
    }


def write_jobs_jsonl(directory: Path, runs: list[Run]) -> list[Path]:
    """`runs-<submitted day>.jsonl`: the runs not scheduled by Slurm."""
    by_day: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        if run.scheduler == "jobs_file":
            by_day[day_of(run.submitted_us).isoformat()].append(run)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for day in sorted(by_day):
        path = directory / f"runs-{day}.jsonl"
        path.write_text(
            "".join(json.dumps(run_record(r), separators=(",", ":")) + "\n" for r in by_day[day])
        )
        paths.append(path)
    return paths


def _no(number: int = 0, is_set: bool = True) -> dict[str, Any]:
    return {"set": is_set, "infinite": False, "number": number}


def _tres(run: Run, nodes: int) -> list[dict[str, Any]]:
    gpus = run.accelerator_count
    return [
        {"type": "cpu", "name": "", "id": 1, "count": 26 * gpus},
        {"type": "mem", "name": "", "id": 2, "count": 234_000 * gpus},
        {"type": "node", "name": "", "id": 4, "count": nodes},
        {"type": "billing", "name": "", "id": 5, "count": gpus},
        {"type": "gres", "name": "gpu", "id": 1001, "count": gpus},
        {
            "type": "gres",
            "name": f"gpu:{SLURM_GRES[run.accelerator_type]}",
            "id": 1002,
            "count": gpus,
        },
    ]


def _times(run: Run) -> dict[str, Any]:
    start, end = run.started_us // US, (run.ended_us or 0) // US
    return {
        "elapsed": (end - start) if end else 0,
        "eligible": run.submitted_us // US,
        "end": end,
        "start": start,
        "submission": run.submitted_us // US,
        "suspended": 0,
        "limit": _no(4320),
        "system": {"seconds": 0, "microseconds": 0},
        "total": {"seconds": 0, "microseconds": 0},
        "user": {"seconds": 0, "microseconds": 0},
    }


def sacct_job(run: Run) -> dict[str, Any]:
    """One job of `sacct --json` (data_parser v0.0.40): node names are the VMs' resource names."""
    nodes = [p.resource_name for p in run.placements]
    state = SLURM_STATE[run.status]
    return {
        "account": run.team,
        "allocation_nodes": len(nodes),
        "array": {
            "job_id": 0,
            "limits": {"max": {"running": {"tasks": 0}}},
            "task_id": _no(0, False),
            "task": "",
        },
        "association": {
            "account": run.team,
            "cluster": SLURM_CLUSTER,
            "partition": "a3u",
            "user": f"{run.team}-bot",
            "id": 700,
        },
        "cluster": SLURM_CLUSTER,
        "comment": {"administrator": "", "job": run.experiment_id, "system": ""},
        "derived_exit_code": {"status": ["SUCCESS"], "return_code": _no(0)},
        "time": _times(run),
        "exit_code": {
            "status": ["SUCCESS" if state == "COMPLETED" else "ERROR"],
            "return_code": _no(0 if state == "COMPLETED" else 1),
        },
        "flags": ["CLEAR_SCHEDULING", "STARTED_ON_SUBMIT"],
        "group": run.team,
        "job_id": run.slurm_job_id,
        "name": f"{run.workload_class}-{run.model_name}",
        "nodes": ",".join(nodes),
        "partition": "a3u",
        "priority": _no(1000),
        "qos": "normal",
        "required": {
            "CPUs": 26 * run.accelerator_count,
            "memory_per_cpu": _no(0, False),
            "memory_per_node": _no(0, False),
        },
        "restart_cnt": 0,
        "state": {"current": [state], "reason": "None"},
        "steps": [],
        "tres": {"allocated": _tres(run, len(nodes)), "requested": _tres(run, len(nodes))},
        "user": f"{run.team}-bot",
        "wckey": {"wckey": "", "flags": []},
        "working_directory": f"/home/{run.team}-bot",
    }


def write_sacct(path: Path, runs: list[Run], start_text: str, end_text: str) -> Path | None:
    """One `sacct --json -X --allusers -S .. -E ..` document of the Slurm runs (None: there are none)."""
    jobs = [sacct_job(r) for r in runs if r.scheduler == "slurm"]
    if not jobs:
        return None
    document = {
        "jobs": jobs,
        "meta": {
            "plugin": {
                "type": "",
                "name": "",
                "data_parser": "data_parser/v0.0.40",
                "accounting_storage": "accounting_storage/slurmdbd",
            },
            "client": {"source": "/dev/pts/3", "user": "flopledger", "group": "flopledger"},
            "command": ["sacct", "--json", "-X", "--allusers", "-S", start_text, "-E", end_text],
            "slurm": {
                "version": {"major": "23", "micro": "5", "minor": "11"},
                "release": "23.11.5",
                "cluster": SLURM_CLUSTER,
            },
        },
        "errors": [],
        "warnings": [],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path
