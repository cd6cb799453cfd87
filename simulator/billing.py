"""The billing export rows of one usage day: accelerators, hosts, disks, storage, egress, tax,
a commitment's fee and an unused reservation, and the credits and corrections that arrive days
and weeks later."""

from __future__ import annotations

import random
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from flopledger.simulator.clock import DAY_US, HOUR_US, US, hour_overlaps
from flopledger.simulator.fleet import Bucket, Fleet, Project, TpuSlice, Vm
from flopledger.simulator.prices import (
    ACCELERATOR_SKUS,
    GIB,
    SKUS,
    SUD_RATE,
    TAX_RATE,
    round_cost,
)
from flopledger.simulator.rows import Charge, Where, credit, make_row, usage_cost
from flopledger.simulator.schedule import Run

Row = dict[str, Any]
UNKNOWN_RUN_ID = "run-999999"  # a storage label naming a run that does not exist
# A 1-year H100 commitment in the USD account's region: the GPUs of the committed-use VMs and
# SPARE_COMMITTED_GPUS more, so that it is only partly used. Its committed use discount credits
# name it in their id, as resource-based commitments do.
COMMITMENT_NAME = "commitment-h100-us-central1-1y"
SPARE_COMMITTED_GPUS = 4
# Reserved H200 capacity no VM consumes for the first UNUSED_RESERVATION_HOURS of every day.
RESERVATION_NAME = "res-h200-spare"
UNUSED_RESERVATION_HOURS = 6
UNUSED_RESERVATION_GPUS = 8
# `--billing-detail`: "standard" (every seeded fleet's export until now: GPU, core and RAM per
# VM-hour, one disk row per VM-day) or "full": every usage window hourly, as a real export's
# are, and the rest of what a GPU VM is billed for each hour (_vm_hour_detail).
BILLING_DETAILS = ("standard", "full")
# Local SSD a machine type comes with (a3-highgpu-8g: 16 x 375 GiB; a3-ultragpu-8g: 32 x 375).
LOCAL_SSD_GIB = {"a3-highgpu-8g": 6_000, "a3-ultragpu-8g": 12_000}
# Data disks of every VM under full detail: (name suffix, SKU, GiB, snapshotted). A snapshotted
# disk has one snapshot (its schedule keeps the latest) of SNAPSHOT_SHARE of its size.
DATA_DISKS = (
    ("datasets", "pd_ssd", 4_096, True),
    ("checkpoints", "pd", 8_192, True),
    ("scratch", "pd_ssd", 2_048, False),
)
SNAPSHOT_SHARE = Decimal("0.6")


def export_us(end_us: int, salt: int) -> int:
    """When the exporter appends a usage window: 1 to 3 hours after it ends, with a fraction."""
    return end_us + HOUR_US + (salt * 7919 % 7200) * US + (salt % 4) * 250_000


def _region(zone: str) -> str:
    return zone.rsplit("-", 1)[0]


def _vm_where(vm: Vm, kind: str, name: str | None = None) -> Where:
    """Where a VM's rows are: its instance ("vm") or a disk ("disk", the boot disk unless
    `name` names a data disk)."""
    project, region = vm.project.project_id, _region(vm.zone)
    country = "NL" if region.startswith("europe") else "US"
    path = "disks" if kind == "disk" else "instances"
    name = name or vm.name
    global_name = f"//compute.googleapis.com/projects/{project}/zones/{vm.zone}/{path}/{name}"
    system = (
        {}
        if kind == "disk"
        else {
            "compute.googleapis.com/machine_spec": vm.machine.name,
            "compute.googleapis.com/cores": str(vm.machine.vcpus),
            "compute.googleapis.com/memory": str(vm.machine.ram_gib * 1024),
            "compute.googleapis.com/is_unused_reservation": "false",
        }
    )
    labels = {**({"team": vm.team} if vm.team else {}), **dict(vm.labels)}
    tags = (("env", "prod"),) if vm.project.account.currency != "USD" else ()
    return Where((name, global_name), (region, country, region, vm.zone), labels, system, tags)


def _credits_for(vm: Vm, sku_key: str, cost: Decimal) -> tuple[dict[str, Any], ...]:
    if sku_key == vm.machine.gpu_sku and vm.committed_use:
        # The usage the commitment covers is credited in full; the commitment's fee is its price.
        return (credit("COMMITTED_USAGE_DISCOUNT", -cost, COMMITMENT_NAME),)
    if sku_key == vm.machine.core_sku and not vm.committed_use:
        return (credit("SUSTAINED_USAGE_DISCOUNT", -round_cost(cost * SUD_RATE)),)
    return ()


def _vm_hour_rows(vm: Vm, hour_us: int, seconds: int) -> list[Row]:
    m = vm.machine
    amounts = {
        m.gpu_sku: m.gpus * seconds,
        m.core_sku: m.vcpus * seconds,
        m.ram_sku: m.ram_gib * GIB * seconds,
    }
    where, rows = _vm_where(vm, "vm"), []
    for key, amount in amounts.items():
        sku, usage = SKUS[key], Decimal(amount)
        cost = usage_cost(sku, vm.project.account, usage)
        charge = Charge(
            sku,
            hour_us,
            hour_us + HOUR_US,
            usage,
            export_us(hour_us + HOUR_US, vm.index + hour_us // HOUR_US),
            credits=_credits_for(vm, key, cost),
        )
        rows.append(make_row(vm.project.account, vm.project, where, charge))
    return rows


def committed_vms(fleet: Fleet) -> list[Vm]:
    return [vm for vm in fleet.vms if vm.committed_use]


def commitment_rows(fleet: Fleet, day_us: int) -> list[Row]:
    """The commitment's fee, one row per hour of the period: usage = committed GPU-seconds."""
    covered = committed_vms(fleet)
    if not covered:
        return []
    gpus = sum(vm.machine.gpus for vm in covered) + SPARE_COMMITTED_GPUS
    project, region = covered[0].project, _region(covered[0].zone)
    where = Where(
        (
            COMMITMENT_NAME,
            f"//compute.googleapis.com/projects/{project.project_id}/regions/{region}"
            f"/commitments/{COMMITMENT_NAME}",
        ),
        (region, "US", region, None),
    )
    rows = []
    for hour_us, overlap_us in hour_overlaps(
        max(day_us, fleet.start_us), min(day_us + DAY_US, fleet.end_us)
    ):
        charge = Charge(
            SKUS["h100_commitment"],
            hour_us,
            hour_us + overlap_us,
            Decimal(gpus * (overlap_us // US)),
            export_us(hour_us + HOUR_US, 71 + hour_us // HOUR_US),
        )
        rows.append(make_row(project.account, project, where, charge))
    return rows


def unused_reservation_rows(fleet: Fleet, day_us: int) -> list[Row]:
    """Reserved H200s no VM consumed, the first hours of each day (system label says so)."""
    if not fleet.vms:
        return []
    project, zone = fleet.vms[0].project, fleet.vms[0].zone
    system = {
        "compute.googleapis.com/is_unused_reservation": "true",
        "compute.googleapis.com/reservation_name": RESERVATION_NAME,
        "compute.googleapis.com/reservation_project_id": project.project_id,
    }
    where = Where(
        (
            RESERVATION_NAME,
            f"//compute.googleapis.com/projects/{project.project_id}/zones/{zone}"
            f"/reservations/{RESERVATION_NAME}",
        ),
        (_region(zone), "US", _region(zone), zone),
        {},
        system,
    )
    rows = []
    for h in range(UNUSED_RESERVATION_HOURS):
        hour_us = day_us + h * HOUR_US
        if not fleet.start_us <= hour_us < fleet.end_us:
            continue
        usage = Decimal(UNUSED_RESERVATION_GPUS * 3600)
        charge = Charge(
            SKUS["h200"], hour_us, hour_us + HOUR_US, usage, export_us(hour_us + HOUR_US, 83 + h)
        )
        rows.append(make_row(project.account, project, where, charge))
    return rows


def _lifetime_today(created_us: int, deleted_us: int, day_us: int) -> tuple[int, int] | None:
    start, end = max(created_us, day_us), min(deleted_us, day_us + DAY_US)
    return (start, end) if end > start else None


def vm_rows(vm: Vm, day_us: int, rng: random.Random, detail: str = "standard") -> list[Row]:
    """Hourly GPU, core and RAM rows while the VM exists; one disk row (and egress for serving)
    spanning its life that day. Full detail: every row hourly, and _vm_hour_detail's rows too."""
    life = _lifetime_today(vm.created_us, vm.deleted_us, day_us)
    if life is None:
        return []
    if detail == "full":
        places = _detail_places(vm)
        return [
            row
            for hour_us, overlap_us in hour_overlaps(*life)
            for row in _vm_hour_rows(vm, hour_us, overlap_us // US)
            + _vm_hour_detail(vm, places, hour_us, overlap_us // US, rng)
        ]
    rows: list[Row] = []
    for hour_us, overlap_us in hour_overlaps(*life):
        rows += _vm_hour_rows(vm, hour_us, overlap_us // US)
    seconds = (life[1] - life[0]) // US
    disk = Charge(
        SKUS["pd"],
        life[0],
        life[1],
        Decimal(vm.disk_gib * GIB * seconds),
        export_us(life[1], vm.index + 11),
    )
    rows.append(make_row(vm.project.account, vm.project, _vm_where(vm, "disk"), disk))
    if vm.project.team in ("inference", "eu-llm"):
        sent = Decimal(rng.randrange(50, 4_000) * GIB * seconds // 86_400)
        egress = Charge(SKUS["egress"], life[0], life[1], sent, export_us(life[1], vm.index + 13))
        rows.append(make_row(vm.project.account, vm.project, _vm_where(vm, "vm"), egress))
    return rows


def _hourly(vm: Vm, where: Where, sku: str, hour_us: int, usage: int, salt: int) -> Row:
    """One row of `usage` units of `sku` in the hour (window: the whole hour, as GPU rows)."""
    export = export_us(hour_us + HOUR_US, vm.index + hour_us // HOUR_US + salt)
    charge = Charge(SKUS[sku], hour_us, hour_us + HOUR_US, Decimal(usage), export)
    return make_row(vm.project.account, vm.project, where, charge)


def _snapshot_where(vm: Vm, name: str) -> Where:
    """A disk's snapshot: a global resource, stored multi-regionally in the US."""
    project = vm.project.project_id
    global_name = f"//compute.googleapis.com/projects/{project}/global/snapshots/{name}"
    return Where(
        (name, global_name), ("us", "US", None, None), {"team": vm.team} if vm.team else {}
    )


def _detail_places(vm: Vm) -> dict[str, Where]:
    """Where each of a VM's full-detail rows is: its instance, boot disk, data disks, snapshots."""
    places = {"instance": _vm_where(vm, "vm"), "boot": _vm_where(vm, "disk")}
    for suffix, _, _, _ in DATA_DISKS:
        disk = f"{vm.name}-{suffix}"
        places[suffix] = _vm_where(vm, "disk", disk)
        places[f"{suffix}-snap"] = _snapshot_where(vm, f"{disk}-snap")
    return places


def _vm_hour_detail(
    vm: Vm, places: dict[str, Where], hour_us: int, seconds: int, rng: random.Random
) -> list[Row]:
    """Full detail: the boot disk, data disks and their snapshots, Local SSD, traffic to other
    zones (and the internet, for serving), the external IP, for `seconds` of the hour. Data disks
    and snapshots are resources of their own: no run holds them, so they are unallocated idle."""
    instance = places["instance"]
    rows = [_hourly(vm, places["boot"], "pd", hour_us, vm.disk_gib * GIB * seconds, 11)]
    if vm.machine.name in LOCAL_SSD_GIB:
        local = LOCAL_SSD_GIB[vm.machine.name] * GIB * seconds
        rows.append(_hourly(vm, instance, "local_ssd", hour_us, local, 17))
    for i, (suffix, sku, gib, snapshotted) in enumerate(DATA_DISKS):
        rows.append(_hourly(vm, places[suffix], sku, hour_us, gib * GIB * seconds, 19 + i))
        if snapshotted:
            stored = int(gib * SNAPSHOT_SHARE) * GIB * seconds
            rows.append(_hourly(vm, places[f"{suffix}-snap"], "snapshot", hour_us, stored, 23 + i))
    sent = rng.randrange(1, 200) * GIB * seconds // 3_600  # datasets in, checkpoints out
    rows.append(_hourly(vm, instance, "inter_zone", hour_us, sent, 29))
    if vm.project.team in ("inference", "eu-llm"):
        served = rng.randrange(2, 170) * GIB * seconds // 3_600
        rows.append(_hourly(vm, instance, "egress", hour_us, served, 13))
    rows.append(_hourly(vm, instance, "external_ip", hour_us, seconds, 37))
    return rows


def tpu_rows(tpu: TpuSlice, day_us: int) -> list[Row]:
    """One row per hour for the whole slice (one billed TPU node): usage = chip-seconds."""
    life = _lifetime_today(tpu.created_us, tpu.deleted_us, day_us)
    if life is None:
        return []
    project = tpu.project.project_id
    where = Where(
        (
            tpu.name,
            f"//tpu.googleapis.com/projects/{project}/locations/{tpu.zone}/nodes/{tpu.name}",
        ),
        (_region(tpu.zone), "US", _region(tpu.zone), tpu.zone),
        {"team": tpu.team} if tpu.team else {},
        {"compute.googleapis.com/machine_spec": tpu.tpu.machine},
    )
    rows = []
    for hour_us, overlap_us in hour_overlaps(*life):
        usage = Decimal(tpu.tpu.chips_per_slice * (overlap_us // US))
        charge = Charge(
            SKUS[tpu.tpu.sku],
            hour_us,
            hour_us + HOUR_US,
            usage,
            export_us(hour_us + HOUR_US, 97 + tpu.index),
        )
        rows.append(make_row(tpu.project.account, tpu.project, where, charge))
    return rows


def _bucket_where(name: str, team: str | None, labels: dict[str, str] | None = None) -> Where:
    return Where(
        (name, f"//storage.googleapis.com/projects/_/buckets/{name}"),
        ("us", "US", None, None),
        {**({"team": team} if team else {}), **(labels or {})},
    )


def _storage_row(project: Project, where: Where, gib: int, day_us: int, salt: int) -> Row:
    usage = Decimal(gib * GIB * 86_400)
    charge = Charge(SKUS["gcs"], day_us, day_us + DAY_US, usage, export_us(day_us + DAY_US, salt))
    return make_row(project.account, project, where, charge)


def bucket_rows(buckets: list[Bucket], day_us: int, day_index: int) -> list[Row]:
    """Checkpoint buckets, growing day by day: one row spanning the 24 hours of the day."""
    return [
        _storage_row(
            b.project,
            _bucket_where(b.name, b.team),
            b.base_gib + b.growth_gib_per_day * day_index,
            day_us,
            31 + i,
        )
        for i, b in enumerate(buckets)
    ]


def run_bucket_rows(fleet: Fleet, runs: Iterable[Run], day_us: int, day_index: int) -> list[Row]:
    """Per-run checkpoint buckets labelled run_id (direct cost), and one naming an unknown run."""
    rows = []
    for run in runs:
        active = run.started_us < day_us + DAY_US and (
            run.ended_us is None or run.ended_us > day_us
        )
        if not (active and run.workload_class == "pretraining" and int(run.run_id[-1]) % 3 == 0):
            continue
        project = next(p for p in fleet.projects if p.project_id == run.project_id)
        days = (day_us - run.started_us) // DAY_US + 2
        where = _bucket_where(f"acme-ckpt-{run.run_id}", run.team, {"run_id": run.run_id})
        rows.append(_storage_row(project, where, 400 * max(days, 1), day_us, 41))
    if day_index == 0 and fleet.projects:
        project = fleet.projects[0]
        where = _bucket_where(
            f"acme-ckpt-{UNKNOWN_RUN_ID}", project.team, {"run_id": UNKNOWN_RUN_ID}
        )
        rows.append(_storage_row(project, where, 750, day_us, 43))
    return rows


def tax_rows(rows: list[Row], day_us: int) -> list[Row]:
    """One tax row per project and day: no resource, cost_type tax."""
    totals: dict[str, Decimal] = {}
    first: dict[str, Row] = {}
    for row in rows:
        pid = row["project"]["id"]
        first.setdefault(pid, row)
        totals[pid] = totals.get(pid, Decimal(0)) + row["cost"]
    return [
        _tax_row(first[pid], round_cost(totals[pid] * TAX_RATE), day_us) for pid in sorted(totals)
    ]


def _tax_row(like: Row, cost: Decimal, day_us: int) -> Row:
    row = dict(like)
    row.update(
        {
            "service": {"id": "6F81-5844-456A", "description": "Compute Engine"},
            "sku": {"id": SKUS["tax"].sku_id, "description": SKUS["tax"].description},
            "usage_start_time": day_us,
            "usage_end_time": day_us + DAY_US,
            "labels": [],
            "system_labels": [],
            "location": None,
            "resource": None,
            "tags": [],
            "price": None,
            "export_time": export_us(day_us + DAY_US, 59),
            "cost": cost,
            "credits": [],
            "usage": {
                "amount": Decimal(0),
                "unit": None,
                "amount_in_pricing_units": Decimal(0),
                "pricing_unit": None,
            },
            "cost_type": "tax",
            "adjustment_info": None,
            "cost_at_list": cost,
            "cost_at_effective_price_default": cost,
            "cost_at_list_consumption_model": cost,
        }
    )
    return row


def late_rows(row: Row, rng: random.Random) -> list[Row]:
    """Corrections that arrive days or weeks after an accelerator usage hour: a promotion credit
    on a zero-cost row, or a usage correction (cost_type adjustment)."""
    roll = rng.random()
    if roll < 0.02:
        late = _late(row, rng, 4, 20)
        late["credits"] = [credit("PROMOTION", -round_cost(row["cost"] * Decimal("0.15")))]
        return [late]
    if roll < 0.035:
        late = _late(row, rng, 7, 30)
        late.update(
            {
                "cost": -round_cost(row["cost"] * Decimal("0.05")),
                "cost_type": "adjustment",
                "adjustment_info": {
                    "id": f"adj-{rng.randrange(10**8):08d}",
                    "description": "Usage correction for a metering error",
                    "mode": "MANUAL_ADJUSTMENT",
                    "type": "USAGE_CORRECTION",
                },
            }
        )
        late["cost_at_effective_price_default"] = late["cost"]
        return [late]
    return []


def _late(row: Row, rng: random.Random, min_days: int, max_days: int) -> Row:
    late = dict(row)
    zero = Decimal(0)
    late.update(
        {
            "export_time": row["export_time"]
            + rng.randrange(min_days, max_days) * DAY_US
            + rng.randrange(3600) * US,
            "cost": zero,
            "cost_at_list": zero,
            "cost_at_effective_price_default": zero,
            "cost_at_list_consumption_model": zero,
            "credits": [],
            "usage": {**row["usage"], "amount": zero, "amount_in_pricing_units": zero},
        }
    )
    return late


def day_rows(
    fleet: Fleet, runs: list[Run], day_index: int, seed: int, detail: str = "standard"
) -> list[Row]:
    """Every row whose usage falls on day `day_index` of the period (late rows included,
    with their later export_time), at `detail` (BILLING_DETAILS)."""
    if detail not in BILLING_DETAILS:
        raise ValueError(
            f"billing detail must be one of {', '.join(BILLING_DETAILS)}, got {detail!r}"
        )
    day_us = fleet.start_us + day_index * DAY_US
    rng = random.Random(f"billing:{seed}:{day_index}")
    rows: list[Row] = []
    for vm in fleet.vms:
        rows += vm_rows(vm, day_us, rng, detail)
    for tpu in fleet.slices:
        rows += tpu_rows(tpu, day_us)
    rows += bucket_rows(fleet.buckets, day_us, day_index)
    rows += run_bucket_rows(fleet, runs, day_us, day_index)
    rows += commitment_rows(fleet, day_us)
    rows += unused_reservation_rows(fleet, day_us)
    rows += tax_rows(rows, day_us)
    late = [extra for row in rows if _is_accelerator(row) for extra in late_rows(row, rng)]
    return rows + late


def _is_accelerator(row: Row) -> bool:
    return row["usage"]["unit"] == "seconds" and row["sku"]["id"] in ACCELERATOR_SKU_IDS


ACCELERATOR_SKU_IDS = frozenset(SKUS[k].sku_id for k in ACCELERATOR_SKUS)
