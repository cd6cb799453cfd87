"""Every SQL file in models/marts/ is one asset; its upstreams are the tables it names."""


import dagster as dg
import pyarrow as pa

import models
from pipelines.resources import Flopledger


def _mart_asset(mart: models.Model, known: set[str]) -> dg.AssetsDefinition:
    deps = [d for d in mart.depends_on if d in known]

    @dg.asset(
        name=mart.name,
        group_name="marts",
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
    }
    table = pa.table({"key": list(settings), "value": list(settings.values())})
    flopledger.warehouse().replace_where("flopledger_settings", "true", None, table)
    return dg.MaterializeResult(metadata={k: dg.MetadataValue.text(v) for k, v in settings.items()})


def build_assets(raw_keys: set[str]) -> list[dg.AssetsDefinition]:
    known = raw_keys | {m.name for m in models.marts()} | {"flopledger_settings"}
    return [flopledger_settings, *(_mart_asset(m, known) for m in models.marts())]
