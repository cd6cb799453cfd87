"""The probes source: probe JSONL through the real pipeline into probe_results and the marts."""

from datetime import date, datetime, timedelta

import dagster as dg

from flopledger.ingest.probes import Probes
from flopledger.ingest.run import IngestRun
from flopledger.pipelines.definitions import build_definitions
from flopledger.pipelines.runner import run_pipeline
from flopledger.probes.simulated import degraded_node, simulated_probe_rows, write_probe_jsonl
from flopledger.probes.specs import spec_rows
from flopledger.settings import load_config
from flopledger.warehouse import open_warehouse
from tests.conftest import REPO, FileBooks, billing_row, run_record

NODES = [("a3-1", "H100-80GB"), ("a3u-1", "H200-141GB"), ("v5p-1", "TPU-v5p")]
DAYS = [date(2026, 10, 1) + timedelta(days=i) for i in range(4)]


def test_probe_assets_are_wired():
    defs = build_definitions(str(REPO / "examples" / "flopledger.yaml"))
    assert defs.resolve_assets_def("probe_results").partitions_def is not None
    specs = defs.resolve_assets_def("accelerator_specs")
    assert specs.group_names_by_key[dg.AssetKey("accelerator_specs")] == "marts"
    assert dg.AssetKey("accelerator_specs") in defs.resolve_assets_def("run_mfu").dependency_keys


def test_probe_days_are_the_days_measured(project_dir):
    write_probe_jsonl(
        project_dir / "probes" / "p.jsonl", simulated_probe_rows(NODES[:1], DAYS[1:3], seed=1)
    )
    config = load_config(project_dir / "flopledger.yaml")
    run = IngestRun(config, open_warehouse(config.warehouse), now=datetime(2026, 10, 10))
    assert Probes().find_days(run) == {date(2026, 10, 2), date(2026, 10, 3)}


def test_simulated_probes_through_the_pipeline(project_dir):
    # 3 nodes x 4 days x 14 shapes (the full accelerator sweep) = 168 rows, plus one line that is
    # not JSON (quarantined). The simulator degrades one node from the middle day (10-03) on:
    # 20% down against its best of the previous days -> flagged on 10-03 and on 10-04.
    rows = simulated_probe_rows(NODES, DAYS, seed=5)
    write_probe_jsonl(project_dir / "probes" / "sim.jsonl", rows)
    (project_dir / "probes" / "torn.jsonl").write_text('{"result_id": "x", "measur\n')
    billing = [billing_row(hour="2026-10-01 00", resource="a3-1")]
    books = FileBooks(project_dir).build(
        billing, [run_record("r", placements=[{"resource_name": "a3-1", "accelerators": 8}])]
    )
    assert books.one("SELECT count(*) FROM probe_results") == 168
    assert books.one("SELECT count(*) FROM quarantine WHERE source = 'probe_results'") == 1
    assert books.one("SELECT count(*) FROM accelerator_specs") == len(spec_rows())
    h100 = "SELECT peak_tflops_spec FROM accelerator_specs WHERE accelerator_type = 'H100-80GB' AND dtype = 'bf16'"
    assert books.one(h100) == 989.4
    node, first_low = degraded_node(NODES, DAYS, seed=5)
    flagged = books.rows(
        "SELECT node, day FROM accelerator_efficiency WHERE ceiling_dropped ORDER BY day"
    )
    assert [(r["node"], r["day"]) for r in flagged] == [
        (node, first_low),
        (node, first_low + timedelta(days=1)),
    ]
    # The MFU mart sees the H100 node's measured ceiling: 75-85% of spec.
    measured = books.one(
        "SELECT measured_peak_tflops / peak_tflops_spec FROM run_mfu WHERE run_id = 'r'"
    )
    assert 0.75 <= measured <= 0.85

    # Re-ingest with 10-02's results dropped from the file and one node's 10-03 sweep missing:
    # a day the inputs no longer hold is kept as it was (history is not wiped), a day they still
    # hold is replaced by what they hold now (3 nodes x 14 shapes -> 2 x 14), nothing doubles.
    node_3 = rows[-1]["node"]
    kept = [
        r
        for r in rows
        if not r["measured_at"].startswith("2026-10-02")
        and not (r["measured_at"].startswith("2026-10-03") and r["node"] == node_3)
    ]
    write_probe_jsonl(project_dir / "probes" / "sim.jsonl", kept)
    config_path = project_dir / "flopledger.yaml"
    assert run_pipeline(load_config(config_path), config_path).succeeded
    assert books.one("SELECT count(*) FROM probe_results") == 168 - 14


def test_a_days_run_reads_that_days_probe_files_and_the_day_befores(project_dir):
    # The probe CLI names its file for the UTC day its sweep starts (probes/cli.py default_out).
    # A sweep that ran past midnight leaves 10-03's first minutes in 10-02's file; 10-01's file
    # holds nothing of 10-03. A run of 10-03 reads 10-02's and 10-03's files, not 10-01's:
    # 10-01's line is broken and would be quarantined if it were read.
    probes = project_dir / "probes"
    rows = simulated_probe_rows(NODES[:1], [DAYS[1], DAYS[2]], seed=3)
    on = {day: [r for r in rows if r["measured_at"].startswith(str(day))] for day in DAYS[1:3]}
    late = dict(on[DAYS[1]][0], result_id="late-one", measured_at="2026-10-03T00:05:00Z")
    write_probe_jsonl(probes / "probe_results-2026-10-02.jsonl", [*on[DAYS[1]], late])
    write_probe_jsonl(probes / "probe_results-2026-10-03.jsonl", on[DAYS[2]])
    (probes / "probe_results-2026-10-01.jsonl").write_text("not json\n")
    config = load_config(project_dir / "flopledger.yaml")
    warehouse = open_warehouse(config.warehouse)
    warehouse.ensure_schema()
    run = IngestRun(config, warehouse, now=datetime(2026, 10, 10), days=[DAYS[2]])
    loaded = Probes().load(run)["probe_results"]
    assert loaded["files"] == 2
    # 14 shapes of 10-03's sweep plus the late line; 10-02's 14 were read but are outside.
    assert (loaded["rows_loaded"], loaded["rows_outside_window"]) == (15, 14)
    assert loaded["rows_quarantined"] == 0
    assert warehouse.query("SELECT count(*) AS n FROM probe_results")["n"][0].as_py() == 15
