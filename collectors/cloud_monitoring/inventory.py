"""Map `tpu.googleapis.com/GceTpuWorker` workers to the TPU nodes the bill names.

A GceTpuWorker series carries only `resource_container` (the project number), `location`
(the zone) and `worker_id`: no node name. An inventory file says which node each worker
belongs to. Format (YAML, or CSV with the same keys as columns) in docs/cloud-monitoring.md:

    nodes:
      - node: tpu-v5p-a               # billed TPU node name (the bill's resource.name)
        project_id: my-project        # billed project id
        resource_container: "1234"    # optional: project number as Monitoring reports it
        zone: us-east5-b
        accelerator_type: v5p-32
        chips_per_worker: 4
        worker_ids: ["8301", "8302"]  # or worker_id_range: [0, 3], or worker_count: 4
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from flopledger.collectors.files import duplicate_columns


class InventoryError(ValueError):
    """The inventory file cannot be used: says which entry and why."""


@dataclass(frozen=True)
class TpuNode:
    """One billed TPU node and the workers that belong to it."""

    node: str
    project_id: str
    zone: str
    worker_ids: tuple[str, ...]
    resource_container: str | None = None
    accelerator_type: str | None = None
    chips_per_worker: int | None = None


@dataclass(frozen=True)
class Inventory:
    """Workers by (project id or number, zone, worker_id) -> their node."""

    nodes: tuple[TpuNode, ...]
    by_worker: Mapping[tuple[str, str, str], TpuNode]

    def lookup(self, container: str, zone: str, worker_id: str) -> TpuNode | None:
        """The node a worker belongs to, or None when the inventory does not know it."""
        return self.by_worker.get((container, zone, worker_id))


def build_inventory(nodes: Iterable[TpuNode]) -> Inventory:
    """Index nodes by worker; a worker claimed by two nodes is an error."""
    nodes = tuple(nodes)
    index: dict[tuple[str, str, str], TpuNode] = {}
    for node in nodes:
        containers = {node.project_id, node.resource_container} - {None}
        for container in containers:
            for worker in node.worker_ids:
                key = (str(container), node.zone, worker)
                if key in index and index[key] is not node:
                    raise InventoryError(
                        f"worker {worker} in {node.zone} is claimed by both "
                        f"{index[key].node!r} and {node.node!r}"
                    )
                index[key] = node
    return Inventory(nodes, index)


def load_inventory(path: str | Path) -> Inventory:
    """Read an inventory file (.yaml/.yml or .csv)."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        with path.open(newline="") as f:
            reader = csv.DictReader(f)
            twice = duplicate_columns(reader.fieldnames or [])
            if twice:  # two `node` columns: which node a worker is on cannot be told
                raise InventoryError(f"{path}: {twice}")
            entries: list[Mapping[str, Any]] = list(reader)
    else:
        entries = _yaml_entries(path)
    return build_inventory(_node(e, f"{path} entry {i}") for i, e in enumerate(entries, 1))


def as_inventory(inventory: Inventory | str | Path | None) -> Inventory | None:
    """An Inventory as given, loaded from a file path, or None."""
    if inventory is None or isinstance(inventory, Inventory):
        return inventory
    return load_inventory(inventory)


def _yaml_entries(path: Path) -> list[Mapping[str, Any]]:
    doc = yaml.safe_load(path.read_text())
    entries = doc.get("nodes") if isinstance(doc, dict) else doc
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise InventoryError(f"{path}: expected a 'nodes:' list of mappings")
    return entries


def _node(entry: Mapping[str, Any], where: str) -> TpuNode:
    for key in ("node", "project_id", "zone"):
        if not _text(entry.get(key)):
            raise InventoryError(f"{where}: missing {key!r}")
    chips = _text(entry.get("chips_per_worker"))
    return TpuNode(
        node=str(entry["node"]).strip(),
        project_id=str(entry["project_id"]).strip(),
        zone=str(entry["zone"]).strip(),
        worker_ids=_worker_ids(entry, where),
        resource_container=_text(entry.get("resource_container")),
        accelerator_type=_text(entry.get("accelerator_type")),
        chips_per_worker=int(chips) if chips else None,
    )


def _worker_ids(entry: Mapping[str, Any], where: str) -> tuple[str, ...]:
    """Workers from exactly one of worker_ids, worker_id_range (inclusive) or worker_count."""
    given = [k for k in ("worker_ids", "worker_id_range", "worker_count") if _text(entry.get(k))]
    if len(given) != 1:
        raise InventoryError(
            f"{where}: give exactly one of worker_ids, worker_id_range, worker_count"
        )
    value = entry[given[0]]
    if given[0] == "worker_ids":
        items = value.split(";") if isinstance(value, str) else value
        return tuple(str(w).strip() for w in items if str(w).strip())
    if given[0] == "worker_count":
        return tuple(str(i) for i in range(int(value)))
    first, last = _range(value, where)
    return tuple(str(i) for i in range(first, last + 1))


def _range(value: Any, where: str) -> tuple[int, int]:
    parts = value.split("-") if isinstance(value, str) else list(value)
    if len(parts) != 2:
        raise InventoryError(f"{where}: worker_id_range must be [first, last] or 'first-last'")
    first, last = int(parts[0]), int(parts[1])
    if last < first:
        raise InventoryError(f"{where}: worker_id_range ends before it starts")
    return first, last


def _text(value: Any) -> str | None:
    """A non-empty string form of a YAML/CSV cell, or None."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return ",".join(map(str, value)) or None
    return str(value).strip() or None
