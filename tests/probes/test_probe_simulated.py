"""Simulated probe results: the CLI's JSONL format, realistic ceilings, one node that degrades."""

import dataclasses
import json
from collections import defaultdict
from datetime import date, timedelta

import pytest

from flopledger.collectors.probe_results import read_probe_results
from flopledger.probes.results import ProbeResult
from flopledger.probes.simulated import degraded_node, simulated_probe_rows, write_probe_jsonl

FIELD_NAMES = tuple(f.name for f in dataclasses.fields(ProbeResult))  # a result's columns

NODES = [("a3-1", "H100-80GB"), ("a3u-1", "H200-141GB"), ("v5p-1", "TPU-v5p"), ("v6e-1", "TPU-v6e")]
DAYS = [date(2026, 10, 1) + timedelta(days=i) for i in range(6)]


def best_efficiency(rows):
    best = defaultdict(float)
    for r in rows:
        key = (r["node"], r["measured_at"][:10])
        best[key] = max(best[key], r["efficiency"])
    return best


def test_rows_are_the_probe_clis_lines_and_read_back_clean(tmp_path):
    rows = simulated_probe_rows(NODES, DAYS, seed=11)
    assert len(rows) == 4 * 6 * 14  # nodes x days x shapes of the full accelerator sweep
    assert all(tuple(r) == FIELD_NAMES for r in rows)
    path = tmp_path / "probe_results.jsonl"
    assert write_probe_jsonl(path, rows) == len(rows)
    assert [json.loads(line) for line in path.read_text().splitlines()] == rows
    table, quarantined = read_probe_results([path])
    assert quarantined == [] and table.num_rows == len(rows)
    assert rows[0]["measured_at"].endswith("Z") and rows[0]["verified"] is True


def test_ceilings_are_realistic_and_one_node_drops():
    rows = simulated_probe_rows(NODES, DAYS, seed=11)
    node, first_low = degraded_node(NODES, DAYS, seed=11)
    assert first_low == DAYS[3]
    for (name, day), efficiency in best_efficiency(rows).items():
        low = name == node and day >= first_low.isoformat()
        # Healthy: 0.76-0.84 of spec at the best shape; degraded: 80% of that.
        assert (0.6 <= efficiency <= 0.68) if low else (0.75 <= efficiency <= 0.85), (name, day)
    gpu = next(r for r in rows if r["node"] == "a3-1")
    tpu = next(r for r in rows if r["node"] == "v5p-1")
    assert (gpu["backend"], gpu["device_kind"], gpu["energy_j"] is not None) == (
        "gpu",
        "NVIDIA H100 80GB HBM3",
        True,
    )
    assert (tpu["backend"], tpu["accelerator_type"], tpu["energy_j"]) == ("tpu", "TPU-v5p", None)


def test_the_same_seed_gives_the_same_rows():
    assert simulated_probe_rows(NODES, DAYS, seed=3) == simulated_probe_rows(NODES, DAYS, seed=3)
    assert simulated_probe_rows(NODES, DAYS, seed=3) != simulated_probe_rows(NODES, DAYS, seed=4)


def test_an_unknown_accelerator_type_is_refused():
    with pytest.raises(ValueError, match="no simulated probe"):
        simulated_probe_rows([("cpu-1", "n2-standard-8")], DAYS, seed=0)
