"""Pods into `jobs` and `job_placements`: the watcher's files and saved `kubectl get pods -o json`.

Two kinds of file, told apart by content:
- a JSON document whose `items` are Pods (`kubectl get pods -A -o json` writes `kind: List`;
  the API's PodList too): each item is read as a LISTED lifecycle record;
- JSON Lines of lifecycle records (`{"record": "pod", ...}`), which `flopledger kube-watch`
  writes (collectors/kubernetes/watch.py).

The newest record of each pod is its state: the furthest along (pending, scheduled, ended),
then by `observed_at` (a kubectl snapshot has none), then file and line order; the
pods are grouped into runs (collectors/kubernetes/runs.py) and each run goes through the jobs
file's normaliser, so the same checks apply. A bad line, a non-Pod item or a run that fails
the checks is quarantined with its reason; a pod that asks for no accelerator is counted as
skipped (CPU pods are not runs). Every record read is counted once: quarantined, skipped, a
duplicate (a pod's older record, or a pod of a run another of its pods stands for) or the
one record that stands for its run (loaded or quarantined).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from flopledger.collectors.files import DuplicateKey, load_document, unique_keys
from flopledger.collectors.jobs.read import JobsRead
from flopledger.collectors.jobs.records import BadRecord, normalise_job
from flopledger.collectors.jobs.schema import JOBS_SCHEMA, PLACEMENTS_SCHEMA
from flopledger.collectors.kubernetes.pods import RECORD, NotAPod, pod_record
from flopledger.collectors.kubernetes.runs import (
    NotARun,
    PodLabelKeys,
    has_accelerators,
    run_key,
    run_record,
)
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.collectors.quarantine import Quarantined

SOURCE = "kubernetes"
SCHEDULER = "kubernetes"
_MAX_RAW = 20_000
# What the run report says of skipped pods.
SKIPPED_NO_ACCELERATOR = (
    "no accelerator (a pod that asks for no GPU, MIG slice or TPU is not a run)"
)


@dataclass
class PodsRead:
    """Runs and placements from pods, what was quarantined, and how many pods were skipped.

    rows_read = jobs.num_rows + len(quarantined) + duplicates + pods_skipped: a run, loaded or
    quarantined, stands for one of its pods' newest records."""

    jobs: pa.Table
    placements: pa.Table
    quarantined: list[Quarantined] = field(default_factory=list)
    rows_read: int = 0  # pod records read (every version of every pod)
    pods: int = 0  # distinct pods
    pods_skipped: int = 0  # pods that asked for no accelerator
    superseded: int = 0  # records a newer record of the same pod replaced
    folded: int = 0  # pods of a multi-pod run beyond the one that stands for it

    @property
    def duplicates(self) -> int:
        """Records another record already stands for: a pod's older records, a run's other pods."""
        return self.superseded + self.folded


@dataclass
class _Seen:
    record: dict[str, Any]
    order: tuple[int, str, int, int]
    source: str
    line: int


def _raw(value: Any) -> str:
    if isinstance(value, str):
        return value[:_MAX_RAW]
    try:
        return json.dumps(value, default=str)[:_MAX_RAW]
    except (RecursionError, ValueError):  # nested past Python's stack: not shown
        return "(not shown: nested too deep)"


class _TooDeep(Exception):
    """A `kubectl -o json` document nested past what Python's JSON parser can take."""


class _Refused(Exception):
    """A `kubectl -o json` document that cannot be read as it stands (the reason)."""


def _document(path: Path) -> dict[str, Any] | None:
    """The file as one JSON object with an `items` list, or None (then it is JSON Lines).

    A document nested too deep to parse (an annotation of 50,000 nested arrays) raises
    _TooDeep when it is kubectl's indented output (a first line of "{"); otherwise it is
    JSON Lines, whose deep line is refused alone."""
    try:
        document = load_document(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    except DuplicateKey as exc:  # which of the two a pod means cannot be told
        raise _Refused(f"{exc}: the file is refused whole") from None
    except RecursionError:
        with path.open(encoding="utf-8", errors="replace") as fh:
            if fh.readline().strip() == "{":
                raise _TooDeep from None
        return None
    return (
        document if isinstance(document, dict) and isinstance(document.get("items"), list) else None
    )


_TEXT_FIELDS = ("uid", "namespace", "name")
_OPTIONAL_TEXT = (
    "owner_kind", "owner_name", "node", "created_at", "scheduled_at", "started_at",
    "finished_at", "deleted_at", "observed_at", "phase", "reason", "event",
)  # fmt: skip
_MAPS = ("labels", "annotations", "node_selector")


def record_problem(record: dict[str, Any]) -> str | None:
    """Why a lifecycle record read from a file cannot be used (None: it can). The watcher
    writes them right; a hand-edited or truncated file may not."""
    for key in _TEXT_FIELDS:
        if not isinstance(record.get(key), str) or not record[key]:
            return f"{key}: a non-empty string is required"
    for key in _OPTIONAL_TEXT:
        if record.get(key) is not None and not isinstance(record[key], str):
            return f"{key}: expected a string or null"
    for key in _MAPS:
        value = record.get(key)
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            return f"{key}: expected a map of string to string"
    requests = record.get("requests")
    if not isinstance(requests, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in requests.items()
    ):
        return "requests: expected a map of resource name to a whole number >= 0"
    code = record.get("exit_code")
    if code is not None and (not isinstance(code, int) or isinstance(code, bool)):
        return "exit_code: expected a whole number or null"
    return None


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str, str | None]]:
    """(line or item number, lifecycle record or None, raw text, reason when None)."""
    try:
        document = _document(path)
    except _TooDeep:
        yield 0, None, "", "JSON nested too deep to read: the file is refused whole"
        return
    except _Refused as exc:
        yield 0, None, "", str(exc)
        return
    if document is not None:
        for i, item in enumerate(document["items"], start=1):
            try:
                record = pod_record(item, "LISTED", None)
                problem = record_problem(record)
            except (NotAPod, TypeError, ValueError, AttributeError, RecursionError) as exc:
                record, problem = None, str(exc) or exc.__class__.__name__
            if problem is None:
                yield i, record, "", None
            else:
                yield i, None, _raw(item), f"items[{i - 1}]: {problem}"
        return
    try:
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line, object_pairs_hook=unique_keys)
                except json.JSONDecodeError as exc:
                    yield n, None, line[:_MAX_RAW], f"not valid JSON ({exc.msg})"
                    continue
                except DuplicateKey as exc:
                    yield n, None, line[:_MAX_RAW], str(exc)
                    continue
                except (RecursionError, ValueError):  # nesting past the stack, huge integers
                    yield n, None, line[:_MAX_RAW], "JSON nested too deep or a number too long"
                    continue
                if not isinstance(record, dict) or record.get("record") != RECORD:
                    yield (
                        n,
                        None,
                        line[:_MAX_RAW],
                        'not a pod lifecycle record ({"record": "pod", ...})',
                    )
                elif (problem := record_problem(record)) is not None:
                    yield n, None, line[:_MAX_RAW], problem
                else:
                    yield n, record, line, None
    except UnicodeDecodeError:
        yield 0, None, "", "not UTF-8 text"


def _stage(record: dict[str, Any]) -> int:
    """How far a pod had got: pending 0, scheduled 1, ended or deleted 2. A pod only moves
    forward, so a later stage is a later state whichever file (or snapshot) says it."""
    if record.get("phase") in ("Succeeded", "Failed") or record.get("deleted_at"):
        return 2
    return 1 if record.get("scheduled_at") else 0


def latest_pods(files: list[Path], quarantined: list[Quarantined]) -> tuple[dict[str, _Seen], int]:
    """The newest record of each pod uid, and how many records were read."""
    newest: dict[str, _Seen] = {}
    read = 0
    for f, path in enumerate(files):
        for line, record, raw, reason in _records(path):
            read += 1
            if record is None:
                quarantined.append(Quarantined(SOURCE, str(path), line or None, str(reason), raw))
                continue
            order = (_stage(record), str(record.get("observed_at") or ""), f, line)
            seen = newest.get(record["uid"])
            if seen is None or order >= seen.order:
                newest[record["uid"]] = _Seen(record, order, str(path), line)
    return newest, read


def read_pod_files(
    files: list[Path],
    label_keys: Mapping[str, str] | None = None,
    project_id: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> PodsRead:
    """Every run the pods of `files` make (files in name order: the newest state wins)."""
    keys = PodLabelKeys.of(label_keys)
    quarantined: list[Quarantined] = []
    newest, read = latest_pods(files, quarantined)
    unreadable = len(quarantined)  # records that could not be read as a pod
    groups: dict[str, list[_Seen]] = defaultdict(list)
    skipped = 0
    for seen in newest.values():
        if has_accelerators(seen.record):
            groups[run_key(seen.record, keys)].append(seen)
        else:
            skipped += 1
    jobs, placements = [], []
    folded = sum(len(members) - 1 for members in groups.values())
    for run_id in sorted(groups):
        members = groups[run_id]
        first = min(members, key=lambda s: (s.source, s.line))
        try:
            record = run_record(run_id, [s.record for s in members], keys, project_id)
            run, held = normalise_job(record, first.source, first.line, SCHEDULER, limits)
        except (BadRecord, NotARun, TypeError, ValueError, RecursionError) as exc:
            raw = _raw([s.record for s in members])
            quarantined.append(
                Quarantined(SOURCE, first.source, first.line or None, f"run {run_id}: {exc}", raw)
            )
            continue
        jobs.append(run)
        placements.extend(held)
    return PodsRead(
        jobs=pa.Table.from_pylist(jobs, schema=JOBS_SCHEMA),
        placements=pa.Table.from_pylist(placements, schema=PLACEMENTS_SCHEMA),
        quarantined=quarantined,
        rows_read=read,
        pods=len(newest),
        pods_skipped=skipped,
        superseded=read - unreadable - len(newest),
        folded=folded,
    )


def merge_runs(read: JobsRead, pods: PodsRead) -> tuple[pa.Table, pa.Table, list[Quarantined]]:
    """The jobs source's runs, placements and quarantine with the pods' added. A pod run whose
    run_id the jobs file or Slurm already has is quarantined (it would be counted twice)."""
    jobs, placements = read.jobs, read.placements
    taken = set(jobs["run_id"].to_pylist())
    clash = [r for r in pods.jobs["run_id"].to_pylist() if r in taken]
    quarantined = [*read.quarantined, *pods.quarantined]
    pod_jobs, pod_placements = pods.jobs, pods.placements
    if clash:
        for row in pod_jobs.filter(pc.is_in(pod_jobs["run_id"], pa.array(clash))).to_pylist():
            reason = f"run {row['run_id']}: its run_id is also in the jobs file or sacct"
            quarantined.append(
                Quarantined(
                    SOURCE, row["source"], row["source_line"] or None, reason, row["run_id"]
                )
            )
        keep = pc.invert(pc.is_in(pod_jobs["run_id"], pa.array(clash)))
        pod_jobs = pod_jobs.filter(keep)
        pod_placements = pod_placements.filter(
            pc.invert(pc.is_in(pod_placements["run_id"], pa.array(clash)))
        )
    return (
        pa.concat_tables([jobs, pod_jobs]),
        pa.concat_tables([placements, pod_placements]),
        quarantined,
    )
