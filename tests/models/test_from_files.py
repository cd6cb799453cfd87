"""From export-shaped files to the marts through the real pipeline (`run_pipeline`).

The other tests here build the marts from raw-table rows; this one checks the way in: the
collectors turn a billing extract in euros, a jobs file and a probe file into those rows,
the marts are built from them, and the pipeline's checks report what the marts found.
One pipeline run for the module (it costs seconds).
"""

from decimal import Decimal as D

import pytest

from tests.conftest import FileBooks, billing_row, run_record, write_config, write_ndjson

GPU = "Nvidia H100 80GB GPU running in Americas"
CORE = "A3 Instance Core running in Americas"
STORAGE = "Standard Storage US Multi-region"
CONFIG = """
warehouse: {kind: duckdb, path: w.duckdb}
sources:
  gcp_billing: {paths: ["billing/*.ndjson"]}
  jobs: {paths: ["jobs/*.jsonl"]}
  probes: {paths: ["probes/*.jsonl"]}
"""


def probe_line(node, verified=True):
    """One line as the probe CLI writes it; a wrong answer carries no speed."""
    return {
        "result_id": f"{node}/{verified}",
        "measured_at": "2026-10-01T03:00:00Z",
        "node": node,
        "device_index": 0,
        "device_kind": "NVIDIA H100 80GB HBM3",
        "accelerator_type": "H100-80GB",
        "backend": "gpu",
        "dtype": "bf16",
        "m": 8192 if verified else 4096,
        "n": 8192 if verified else 4096,
        "k": 8192 if verified else 4096,
        "achieved_tflops": 800.0 if verified else None,
        "verified": verified,
        "failure": None if verified else "wrong answer: 12 entries outside tolerance",
        "probe_version": "1",
    }


@pytest.fixture(scope="module")
def ledger(tmp_path_factory) -> FileBooks:
    root = tmp_path_factory.mktemp("files")
    write_config(root, CONFIG)
    write_ndjson(root / "probes" / "p.jsonl", [probe_line("vm-1"), probe_line("vm-1", False)])
    eur = {"currency": "EUR", "rate": "0.921734"}
    billing = [
        billing_row(sku=GPU, resource="vm-1", cost="92.1734", usage_seconds=28800, **eur),
        billing_row(sku=CORE, resource="vm-1", cost="9.21734", usage_seconds=748800, **eur),
        billing_row(sku=STORAGE, resource="ckpt", cost="1.25", labels={"run_id": "ghost"}),
    ]
    runs = [run_record("r", placements=[{"resource_name": "vm-1", "accelerators": 8}])]
    return FileBooks(root).build(billing, runs)


def test_a_run_costs_its_export_rows_in_usd(ledger):
    # The export's rate is EUR per USD: 92.1734 / 0.921734 = 100 USD (GPU), 9.21734 / 0.921734
    # = 10 USD (host). The run held all 8 GPUs of vm-1 for the hour: 100 + 10 = 110 USD.
    assert ledger.one("SELECT effective_cost FROM cost_per_run WHERE run_id = 'r'") == D("110")
    monthly = ledger.rows(
        "SELECT currency, effective_cost_in_currency, effective_cost FROM spend_monthly"
        " ORDER BY currency"
    )
    # EUR: 92.1734 + 9.21734 = 101.39074 (110 USD); USD: the bucket's 1.25.
    assert [tuple(m.values()) for m in monthly] == [
        ("EUR", D("101.39074"), D("110")),
        ("USD", D("1.25"), D("1.25")),
    ]
    # The books close: 110 + 1.25 = 111.25 billed, all of it allocated or unallocated.
    differences = ledger.rows("SELECT difference FROM books")
    assert differences and all(r["difference"] == 0 for r in differences)
    assert ledger.report.snapshot is not None  # published for the dashboards


def test_the_checks_report_what_the_marts_found(ledger):
    checks = {c.name: c for c in ledger.report.checks}
    # The 1.25 labelled run_id=ghost names no run: one unknown run label (a WARN, not an error).
    issues = checks["allocation_issues_counted"]
    assert (issues.passed, issues.severity, issues.description) == (
        False,
        "WARN",
        "1 unknown run label",
    )
    # vm-1's 4096 cube gave a wrong answer: reported, never a speed.
    probes = checks["probe_results_verified"]
    assert (probes.passed, probes.severity) == (False, "WARN")
    assert probes.description == "failed probes on vm-1 (1)"
    assert ledger.one("SELECT count(*) FROM probe_results WHERE achieved_tflops IS NULL") == 1
