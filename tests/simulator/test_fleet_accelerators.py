"""The simulated fleet's accelerators are rows of the accelerator table, as the collectors see them."""

from __future__ import annotations

import pyarrow.parquet as pq

from flopledger.collectors.skus import classify_sku
from flopledger.simulator import SimulationResult
from flopledger.simulator.fleet import A3, A3U, V5P, V6E
from flopledger.simulator.prices import SKUS
from tests.simulator.conftest import files_of


def test_each_machines_gpu_sku_classifies_to_its_accelerator_type() -> None:
    # "Nvidia H100 80GB GPU running in Americas" -> H100-80GB; "H200 141GB GPU ..." -> H200-141GB.
    for machine, expected in ((A3, "H100-80GB"), (A3U, "H200-141GB")):
        assert machine.accelerator_type == expected
        assert classify_sku(SKUS[machine.gpu_sku].description).accelerator_type == expected
    for tpu, expected in ((V5P, "TPU-v5p"), (V6E, "TPU-v6e")):
        assert tpu.accelerator_type == expected
        assert classify_sku(SKUS[tpu.sku].description).accelerator_type == expected


def test_gpu_telemetry_names_and_sizes_gpus_as_the_table_does(tiny: SimulationResult) -> None:
    seen = set()
    for path in files_of(tiny, "spool/**/*.parquet"):
        table = pq.read_table(path, columns=["gpu_name", "mem_total_bytes"])
        seen |= set(zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True))
    # 80 GiB = 80 x 1024^3 per H100; 141 GB = 141 x 10^9 per H200.
    assert seen == {("NVIDIA H100 80GB HBM3", 85_899_345_920), ("NVIDIA H200", 141_000_000_000)}
