"""Every SQL file in models/intermediate/ and models/marts/ is one asset; its upstreams are the
tables its SQL reads (models/lineage.py)."""

import dagster as dg
import pyarrow as pa

from flopledger import models
from flopledger.pipelines.marts.commitment_plan import commitment_plan
from flopledger.pipelines.marts.snapshot import OTHER_MARTS, build_snapshot_asset
from flopledger.pipelines.resources import Flopledger
from flopledger.probes.specs import spec_rows


def _mart_asset(mart: models.Model, known: set[str]) -> dg.AssetsDefinition:
    unknown = sorted(set(mart.depends_on) - known)
    if unknown:  # a mistyped table, or one no asset writes: it would build before its inputs
        raise ValueError(f"models: {mart.name} reads {unknown}, which no asset writes")
    deps = sorted(mart.depends_on)

    @dg.asset(
        name=mart.name,
        group_name="intermediate" if mart.kind == "intermediate" else "marts",
        deps=deps,
        kinds={"duckdb", "sql"},
        description=mart.table_comment,
    )
    def build(flopledger: Flopledger) -> dg.MaterializeResult:
        rows = flopledger.warehouse().build_mart(mart.name)
        return dg.MaterializeResult(metadata={"rows": dg.MetadataValue.int(rows)})

    return build


@dg.asset(
    name="flopledger_settings",
    group_name="marts",
    kinds={"duckdb"},
    description="The settings the marts are built with, from flopledger.yaml.",
)
def flopledger_settings(flopledger: Flopledger) -> dg.MaterializeResult:
    config = flopledger.config()
    settings = {
        "run_label_key": config.allocation.run_label_key,
        "reporting_currency": config.reporting_currency,
        "chargeback_policy": config.allocation.shared_cost_policy,
        **{f"chargeback_key:{t}": str(w) for t, w in config.allocation.shared_cost_key.items()},
    }
    table = pa.table({"key": list(settings), "value": list(settings.values())})
    flopledger.warehouse().replace_all("flopledger_settings", table)
    return dg.MaterializeResult(metadata={k: dg.MetadataValue.text(v) for k, v in settings.items()})


def spec_table() -> pa.Table:
    """The accelerator table's peaks (through probes.specs) as `accelerator_specs` rows."""
    rows = spec_rows()
    return pa.table(
        {
            "accelerator_type": [r["accelerator_type"] for r in rows],
            "dtype": [r["dtype"] for r in rows],
            "peak_tflops_spec": pa.array([r["peak_tflops"] for r in rows], pa.float64()),
            "source": [r["source"] for r in rows],
        }
    )


@dg.asset(
    name="accelerator_specs",
    group_name="marts",
    kinds={"duckdb"},
    description="Peak dense TFLOP/s per accelerator type and dtype, from the spec sheets (accelerators/table.py).",
)
def accelerator_specs(flopledger: Flopledger) -> dg.MaterializeResult:
    table = spec_table()
    flopledger.warehouse().replace_all("accelerator_specs", table)
    return dg.MaterializeResult(metadata={"rows": dg.MetadataValue.int(table.num_rows)})


def build_assets(raw_keys: set[str]) -> list[dg.AssetsDefinition]:
    known = raw_keys | {m.name for m in models.marts()} | set(OTHER_MARTS)
    return [
        flopledger_settings,
        accelerator_specs,
        commitment_plan,
        *(_mart_asset(m, known) for m in models.marts()),
        build_snapshot_asset([m.name for m in models.marts()]),
    ]
