"""The knobs that let the benchmark's month reach the issue's sizes: `--job-density` (more, shorter
runs) and `--billing-detail full` (a finer export). Off by default: every seeded fleet unchanged."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest
from benchmarks.pandas_peer import run_costs

from flopledger.cli.main import main
from flopledger.pipelines.runner import run_pipeline
from flopledger.settings import load_config
from flopledger.simulator import DEFAULT_START, simulate
from flopledger.simulator.billing import vm_rows
from flopledger.simulator.clock import DAY_US, HOUR_US, MINUTE_US, US, day_start_us
from flopledger.simulator.fleet import build_fleet
from flopledger.simulator.schedule import _cells, build_schedule
from flopledger.warehouse import open_warehouse

START = day_start_us(DEFAULT_START)


def _fleet(gpus: int, chips: int, days: int):
    return build_fleet(gpus, chips, START, START + days * DAY_US, 1)


def test_defaults_give_the_demo_as_published(tmp_path: Path) -> None:
    """The demo's fleet (cli/commands/demo.py) with the knobs at their defaults: the headline's
    92 runs and billed 102,550.34 USD / effective 82,224.01 USD over 2,360 distinct rows."""
    result = simulate(tmp_path / "demo", gpus=48, tpu_chips=24, days=5, seed=1, telemetry=False)
    assert result.runs == 92
    assert result.totals["billed_usd"] == "102550.338167618"
    assert result.totals["effective_usd"] == "82224.009705196"
    assert result.totals["distinct_rows"] == 2360
    assert "--job-density" not in result.config_path.read_text()


def _by_sku(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        out[row["sku"]["description"]].append(row)
    return out


def test_full_detail_bills_each_vm_hour_finer() -> None:
    """VM 0 is an A3 (8 H100) of acme-llm-prod living the whole day; VM 2 an A3 of the serving
    team; VM 3 an A3 Ultra. Standard: 24 x (GPU, core, RAM) + 1 disk row = 73 (VM 2: + 1 egress).
    Full: every hour GPU, core, RAM, boot disk, Local SSD, 3 data disks, 2 snapshots, inter-zone
    traffic and the external IP = 12 rows, 24 x 12 = 288; the serving VM also internet egress:
    24 x 13 = 312."""
    fleet = _fleet(32, 0, 1)
    vm0, vm2, vm3 = fleet.vms[0], fleet.vms[2], fleet.vms[3]
    assert (vm0.machine.name, vm2.project.team, vm3.machine.name) == (
        "a3-highgpu-8g",
        "inference",
        "a3-ultragpu-8g",
    )
    day = fleet.start_us
    assert len(vm_rows(vm0, day, random.Random(0))) == 73
    assert len(vm_rows(vm2, day, random.Random(0))) == 74
    full = vm_rows(vm0, day, random.Random(0), "full")
    assert len(full) == 288
    assert len(vm_rows(vm2, day, random.Random(0), "full")) == 312
    assert {(r["usage_start_time"] - day) % HOUR_US for r in full} == {0}  # hourly windows
    assert {r["usage_end_time"] - r["usage_start_time"] for r in full} == {HOUR_US}

    skus = _by_sku(full)
    # Data disks: datasets 4,096 GiB (SSD PD, 0.17 USD per GiB-month of 730 h) and scratch 2,048
    # GiB (SSD PD); checkpoints 8,192 GiB (Balanced PD, 0.10). One hour of datasets:
    # 4096 x 0.17 / 730 = 0.953863013... -> 0.953863; scratch 2048 x 0.17 / 730 = 0.476932.
    ssd = sorted((r["resource"]["name"], r["cost"]) for r in skus["SSD backed PD Capacity"][:2])
    assert ssd == [
        (f"{vm0.name}-datasets", Decimal("0.953863")),
        (f"{vm0.name}-scratch", Decimal("0.476932")),
    ]
    ssd_row = skus["SSD backed PD Capacity"][0]
    assert ssd_row["usage"]["unit"] == "byte-seconds"
    assert ssd_row["usage"]["amount"] == Decimal(4096 * 2**30 * 3600)
    assert ssd_row["usage"]["pricing_unit"] == "gibibyte month"
    # Balanced PD: the 1,024 GiB boot disk (named as the VM) and the 8,192 GiB checkpoints disk.
    # Boot: 1024 x 0.10 / 730 = 0.140273972... -> 0.140274; checkpoints 8192 x 0.1 / 730 =
    # 1.122191780... -> 1.122192.
    balanced = sorted((r["resource"]["name"], r["cost"]) for r in skus["Balanced PD Capacity"][:2])
    assert balanced == [
        (vm0.name, Decimal("0.140274")),
        (f"{vm0.name}-checkpoints", Decimal("1.122192")),
    ]
    # Snapshots of datasets and checkpoints, 60% of the disk (floored to whole GiB): 2,457 GiB
    # and 4,915 GiB at 0.05 per GiB-month: 2457 x 0.05 / 730 = 0.168287671 -> 0.168288;
    # 4915 x 0.05 / 730 = 0.336643835 -> 0.336644. Global resources, multi-regional US.
    snaps = sorted(
        (r["resource"]["name"], r["cost"]) for r in skus["Storage PD Snapshot in US"][:2]
    )
    assert snaps == [
        (f"{vm0.name}-checkpoints-snap", Decimal("0.336644")),
        (f"{vm0.name}-datasets-snap", Decimal("0.168288")),
    ]
    assert "/global/snapshots/" in skus["Storage PD Snapshot in US"][0]["resource"]["global_name"]
    # Local SSD: 16 x 375 = 6,000 GiB at 0.08: 6000 x 0.08 / 730 = 0.657534246 -> 0.657534, on
    # the instance. External IP: 3,600 s at 0.005 per hour = 0.005.
    local = skus["SSD backed Local Storage"][0]
    assert (local["resource"]["name"], local["cost"]) == (vm0.name, Decimal("0.657534"))
    ip = skus["External IP Charge on a Standard VM"][0]
    assert (ip["usage"]["amount"], ip["usage"]["unit"], ip["cost"]) == (
        Decimal(3600),
        "seconds",
        Decimal("0.005000"),
    )
    # Inter-zone traffic: 1 to 199 GiB an hour in bytes, 0.01 USD per GiB.
    zone = skus["Network Inter Zone Data Transfer Out"][0]
    assert zone["usage"]["unit"] == "bytes" and zone["usage"]["pricing_unit"] == "gibibyte"
    assert 2**30 <= zone["usage"]["amount"] < 200 * 2**30
    # The A3 Ultra's 32 x 375 = 12,000 GiB: 12000 x 0.08 / 730 = 1.315068493 -> 1.315068.
    ultra = _by_sku(vm_rows(vm3, day, random.Random(0), "full"))["SSD backed Local Storage"][0]
    assert ultra["cost"] == Decimal("1.315068")


def test_full_detail_of_a_vm_created_mid_hour() -> None:
    """VM 5 (the serving team's) lives part of the period, created and deleted mid-hour: each of
    its hours is billed for the seconds it existed, as its GPU rows are (13 rows an hour: VM 0's
    12 and internet egress)."""
    fleet = _fleet(48, 0, 3)
    vm = fleet.vms[5]
    created = vm.created_us - fleet.start_us
    day = fleet.start_us + created // DAY_US * DAY_US
    rows = vm_rows(vm, day, random.Random(0), "full")
    first_hour = vm.created_us - vm.created_us % HOUR_US
    first = [r for r in rows if r["usage_start_time"] == first_hour]
    assert vm.project.team == "inference" and len(first) == 13
    seconds = (first_hour + HOUR_US - vm.created_us) // US
    ip = next(r for r in first if r["sku"]["description"].startswith("External IP"))
    assert ip["usage"]["amount"] == Decimal(seconds) < 3600


def test_density_makes_each_cells_first_gap_and_run_shorter() -> None:
    """The same draws, scaled: a cell's first run starts after half the gap (plus the fixed 5
    minutes) and lasts half as long, give or take the second the draw adds after scaling (and
    Slurm's whole seconds)."""
    fleet = _fleet(64, 16, 4)
    plain, dense = build_schedule(fleet, 1), build_schedule(fleet, 1, 2.0)
    compared = 0
    for cell in _cells(fleet):
        names = {r.name for r in cell.resources}
        a = next(r for r in plain if r.placements[0].resource_name in names)
        b = next(r for r in dense if r.placements[0].resource_name in names)
        gap_a, gap_b = a.started_us - cell.start_us, b.started_us - cell.start_us
        assert abs((gap_a - 5 * MINUTE_US) / 2 - (gap_b - 5 * MINUTE_US)) <= US
        if a.status == "succeeded" and b.status == "succeeded" and a.ended_us and b.ended_us:
            assert abs((a.ended_us - a.started_us) / 2 - (b.ended_us - b.started_us)) <= 2 * US
            compared += 1
    assert compared >= 3


def _busy_share(fleet, runs) -> float:
    held = sum(
        p.accelerators * ((p.end_us or fleet.end_us) - p.start_us)
        for r in runs
        for p in r.placements
    )
    capacity = sum(v.machine.gpus * (v.deleted_us - v.created_us) for v in fleet.vms)
    capacity += sum(s.tpu.chips_per_slice * (s.deleted_us - s.created_us) for s in fleet.slices)
    return held / capacity


def test_density_scales_runs_and_keeps_the_schedule_sound() -> None:
    """Density 2 on 64 GPUs and 16 chips for 4 days: about twice the runs (jobs and gaps halve,
    so runs per cell double but for the cut at the period's end), the busy share within 5 points
    of density 1's and below 95% (idle remains), every run on the fleet's accelerators, and no
    accelerator held by two runs at once."""
    fleet = _fleet(64, 16, 4)
    plain, dense = build_schedule(fleet, 1), build_schedule(fleet, 1, 2.0)
    assert 1.7 <= len(dense) / len(plain) <= 2.3
    assert abs(_busy_share(fleet, dense) - _busy_share(fleet, plain)) < 0.05
    assert _busy_share(fleet, dense) < 0.95
    devices = {v.name: v.machine.gpus for v in fleet.vms}
    devices |= {s.name: s.tpu.chips_per_slice for s in fleet.slices}
    held: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    for run in dense:
        for p in run.placements:
            assert p.first_device + p.accelerators <= devices[p.resource_name]
            for device in range(p.first_device, p.first_device + p.accelerators):
                held[(p.resource_name, device)].append((p.start_us, p.end_us or fleet.end_us))
    for spans in held.values():
        spans.sort()
        assert all(end <= nxt for (_, end), (nxt, _) in zip(spans, spans[1:], strict=False))


def test_the_books_close_and_every_run_costs_what_the_truth_says(tmp_path: Path) -> None:
    """Both knobs on a tiny fleet, through the whole pipeline: the warehouse's totals, each run's
    cost and each resource-hour's unallocated idle equal the simulator's truth, and every
    reconciliation check of the books is zero; the benchmark's pandas peer agrees run by run."""
    result = simulate(
        tmp_path / "sim",
        gpus=16,
        tpu_chips=8,
        days=2,
        seed=3,
        telemetry=False,
        job_density=2.0,
        billing_detail="full",
    )
    assert "--job-density 2 --billing-detail full" in result.config_path.read_text()
    report = run_pipeline(load_config(result.config_path), result.config_path)
    assert report.succeeded, report.failures
    assert not [c for c in report.failed_error_checks if c.asset != "budget_status"]
    warehouse = open_warehouse(report.config.warehouse)
    truth_dir = result.out_dir / "truth"
    truth = json.loads((truth_dir / "totals.json").read_text())
    got = warehouse.query(
        "SELECT count(*) AS n, sum(cost_usd + credits_total_usd) AS e FROM billing_line_items"
    ).to_pylist()[0]
    assert (got["n"], got["e"]) == (truth["distinct_rows"], Decimal(truth["effective_usd"]))
    books = warehouse.query("SELECT check_name, difference FROM books").to_pylist()
    assert books and all(b["difference"] == 0 for b in books), books
    costs = {
        r["run_id"]: r["effective_cost"]
        for r in warehouse.query("SELECT run_id, effective_cost FROM cost_per_run").to_pylist()
    }
    truth_runs = _csv(truth_dir / "run_costs.csv")
    assert len(truth_runs) == result.runs > 20
    for run in truth_runs:
        assert costs[run["run_id"]] == Decimal(run["effective_cost_usd"]), run["run_id"]
    # The benchmark's pandas peer reads the finer export to the same costs, run by run.
    peer = run_costs(result.out_dir, None)
    assert {run: Decimal(int(nanos)).scaleb(-9) for run, nanos in peer.items()} == costs
    idle = {
        (r["resource_name"], str(r["hour"])): r["unallocated_idle_cost"]
        for r in warehouse.query(
            "SELECT resource_name, hour, unallocated_idle_cost FROM idle_capacity"
        ).to_pylist()
    }
    truth_hours = _csv(truth_dir / "resource_hours.csv")
    accelerator_hours = [rh for rh in truth_hours if (rh["resource_name"], rh["hour"]) in idle]
    assert len(accelerator_hours) == 3 * 48  # two VMs and one TPU slice, 48 hours each
    for rh in accelerator_hours:
        key = (rh["resource_name"], rh["hour"])
        assert idle[key] == Decimal(rh["unallocated_idle_cost_usd"]), key
    # Data disks and snapshots are resources of their own: each hour's cost is pooled there,
    # as the truth pools it, and no run holds them (all of it unallocated idle in the truth).
    pools = {
        (r["resource_name"], str(r["hour"])): r["effective_nanos"]
        for r in warehouse.query(
            "SELECT resource_name, hour, effective_nanos FROM resource_hour_pool"
        ).to_pylist()
    }
    names = ("a3-llm-0000-datasets", "a3-eu-llm-0001-checkpoints-snap")
    disks = [rh for rh in truth_hours if rh["resource_name"] in names]
    assert len(disks) == 2 * 48  # 16 GPUs: VMs 0 and 1, living the whole 2 days
    for rh in disks:
        nanos = Decimal(pools[(rh["resource_name"], rh["hour"])]).scaleb(-9)
        assert (
            nanos == Decimal(rh["effective_cost_usd"]) == Decimal(rh["unallocated_idle_cost_usd"])
        )


def _csv(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--job-density", "0"], "job density must be between 0.1 and 50, got 0"),
        (["--job-density", "nan"], "job density must be between 0.1 and 50, got nan"),
        (["--job-density=-inf"], "job density must be between 0.1 and 50, got -inf"),
        (["--job-density", "1e9"], "job density must be between 0.1 and 50, got 1e+09"),
    ],
)
def test_bad_density_is_one_clear_line(tmp_path: Path, capsys, args, message) -> None:
    out = tmp_path / "bad"
    code = main(["simulate", "--out", str(out), "--gpus", "8", "--days", "1", *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not (out / "billing").exists()  # refused before anything was written


def test_unknown_billing_detail_is_refused(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--out", str(tmp_path / "x"), "--billing-detail", "finest"])
    assert exc.value.code == 2
    assert "invalid choice: 'finest'" in capsys.readouterr().err
