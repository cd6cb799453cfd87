"""Slurm's `sacct --json` (and slurmrestd's slurmdb job list), every data_parser version.

Each Slurm job record becomes a run record of the jobs file's shape, so that one
normaliser checks both. Field paths by version are in shared/data/formats/slurm_sacct_json/FIELDS.md.
"""

from __future__ import annotations

from typing import Any

from flopledger.collectors.jobs.hostlist import expand_hostlist

# Slurm job states to flopledger run status. Pending jobs hold nothing yet and are reported.
_STATUS = {
    "COMPLETED": "succeeded",
    "RUNNING": "running",
    "SUSPENDED": "running",
    "REQUEUED": "running",
    "CANCELLED": "cancelled",
    "FAILED": "failed",
    "TIMEOUT": "failed",
    "NODE_FAIL": "failed",
    "OUT_OF_MEMORY": "failed",
    "BOOT_FAIL": "failed",
    "DEADLINE": "failed",
    "PREEMPTED": "failed",
}


class NotARun(ValueError):
    """A Slurm record that is not a run to cost (e.g. still pending); the message says why."""


def is_sacct_document(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("jobs"), list)
        and ("meta" in document or "errors" in document)
    )


def _number(value: Any) -> int | None:
    """A plain int, or v0.0.39+'s {set, infinite, number}."""
    if isinstance(value, dict):
        return int(value["number"]) if value.get("set") and not value.get("infinite") else None
    return None if value is None else int(value)


def _epoch(value: Any) -> int | None:
    seconds = _number(value)
    return seconds if seconds else None  # 0 means not started / not ended


def _state(job: dict[str, Any]) -> str:
    current = (job.get("state") or {}).get("current")
    if isinstance(current, list):
        current = current[0] if current else None
    return str(current or "UNKNOWN").upper()


def _gpus(job: dict[str, Any]) -> tuple[int, str | None]:
    """GPU count and type from tres.allocated (gres/gpu, or typed gres/gpu:<type> entries)."""
    total, typed = 0, None
    for entry in (job.get("tres") or {}).get("allocated") or []:
        name = entry.get("name") or ""
        if entry.get("type") != "gres" or not name.startswith("gpu"):
            continue
        if name == "gpu":
            total = max(total, int(entry.get("count") or 0))
        elif name.startswith("gpu:"):
            typed = name.split(":", 1)[1]
    return total, typed


def _placements(hosts: list[str], gpus: int) -> list[dict[str, Any]]:
    """GPUs spread over hosts: equal shares, the remainder to the first hosts."""
    if not hosts:
        return []
    share, extra = divmod(gpus, len(hosts))
    return [
        {"resource_name": host, "accelerators": share + (1 if i < extra else 0)}
        for i, host in enumerate(hosts)
    ]


def sacct_run_record(job: Any, max_hosts: int | None = None) -> dict[str, Any]:
    """A jobs-file run record for one Slurm job record (at most `max_hosts` nodes)."""
    if not isinstance(job, dict):
        raise NotARun(f"a job entry must be an object, got {type(job).__name__}")
    state = _state(job)
    if state == "PENDING":
        raise NotARun("job is pending: it holds no resources yet")
    status = _STATUS.get(state)
    if status is None:
        raise NotARun(f"unknown Slurm state {state!r}")
    gpus, gpu_type = _gpus(job)
    times = job.get("time") or {}
    cluster = job.get("cluster") or "slurm"
    attempt = (_number(job.get("restart_cnt")) or 0) + 1
    job_id = str(job.get("job_id"))
    return {
        "run_id": f"slurm-{cluster}-{job_id}" + (f"-r{attempt}" if attempt > 1 else ""),
        "job_id": f"slurm-{cluster}-{job_id}",
        "attempt": attempt,
        "team": job.get("account") or (job.get("association") or {}).get("account"),
        "workload_class": "other",
        "submitted_at": _epoch(times.get("submission")),
        "started_at": _epoch(times.get("start")),
        "ended_at": _epoch(times.get("end")) if status != "running" else None,
        "status": status,
        "accelerator_type": gpu_type,
        "accelerator_count": gpus,
        "labels": {
            "slurm_cluster": cluster,
            "slurm_user": job.get("user") or "",
            "slurm_partition": job.get("partition") or "",
            "slurm_state": state,
            "slurm_job_name": job.get("name") or "",
        },
        "placements": _placements(expand_hostlist(job.get("nodes"), max_hosts), gpus),
    }
