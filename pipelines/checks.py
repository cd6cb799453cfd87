"""Every check a model declares in its header (`-- @check name (severity[, blocking]): ...`),
built by one factory.

A check's SQL (models/checks/<name>.sql) returns the rows that break it, so it passes when none
come back; its `@row` header says how one such row reads in the check's description (the run
report prints it). A blocking ERROR check that fails stops everything downstream of its table:
the snapshot readers see is never published from books in doubt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dagster as dg

from flopledger import models
from flopledger.ingest.registry import SOURCES
from flopledger.models.sql_files import CheckSpec, SqlFile
from flopledger.pipelines.resources import Flopledger

SEVERITY = {"error": dg.AssetCheckSeverity.ERROR, "warn": dg.AssetCheckSeverity.WARN}
SHOWN = 20  # failing rows described, at most


def describe(template: str | None, rows: list[dict[str, Any]]) -> str:
    """The failing rows in words: each through `template` (`{column}` put in), joined."""
    if template is None:
        return f"{len(rows)} row(s) break the check"
    said = [
        template.format_map({k: "null" if v is None else v for k, v in r.items()}) for r in rows
    ]
    more = f", and {len(said) - SHOWN} more" if len(said) > SHOWN else ""
    return ", ".join(said[:SHOWN]) + more


def check_file(name: str) -> SqlFile:
    """models/checks/<name>.sql, read when the check runs."""
    return models.CHECKS.file(name)


def not_configured(table: str) -> Callable[[Flopledger], str | None]:
    """Why the checks of a source's raw table do not apply to a config that does not name the
    source (None for any other table: they always apply)."""
    owner = next((s for s in SOURCES if table in {t.name for t in s.tables}), None)

    def reason(flopledger: Flopledger) -> str | None:
        if owner is None or owner.configured(flopledger.config()):
            return None
        return f"sources.{owner.name} is not configured"

    return reason


def spec_of(table: str, spec: CheckSpec) -> dg.AssetCheckSpec:
    """A declared check on a mart, run in the mart's own step (marts/assets.py)."""
    check_file(spec.name)  # a declared check without its SQL fails here, at load
    return dg.AssetCheckSpec(
        spec.name, asset=table, description=spec.description, blocking=spec.blocking
    )


def evaluate(
    table: str, spec: CheckSpec, flopledger: Flopledger, skip: str | None = None
) -> dg.AssetCheckResult:
    """Run one declared check on `table`: its SQL's rows break it. `skip` may say why it does
    not apply to this config (a source not configured): it then passes, saying so."""
    if skip is not None:
        return dg.AssetCheckResult(
            asset_key=table, check_name=spec.name, passed=True, description=skip
        )
    file = check_file(spec.name)
    rows = flopledger.warehouse().query(file.text).to_pylist()
    return dg.AssetCheckResult(
        asset_key=table,
        check_name=spec.name,
        passed=not rows,
        severity=SEVERITY[spec.severity],
        description=describe(file.row, rows) if rows else spec.description,
        metadata={"failing_rows": dg.MetadataValue.int(len(rows))},
    )


def model_check(
    table: str, spec: CheckSpec, skip: Callable[[Flopledger], str | None]
) -> dg.AssetChecksDefinition:
    """One declared check on a raw table, a step of its own after the source's step. `skip`
    may say why it does not apply to this config (a source not configured)."""
    check_file(spec.name)  # a declared check without its SQL fails here, at load

    @dg.asset_check(
        asset=table, name=spec.name, description=spec.description, blocking=spec.blocking
    )
    def check(flopledger: Flopledger) -> dg.AssetCheckResult:
        return evaluate(table, spec, flopledger, skip(flopledger))

    return check


def build_checks() -> list[dg.AssetChecksDefinition]:
    """The checks the raw tables declare. A mart's declared checks run in the mart's own step
    (marts/assets.py): one Dagster step per mart, not one more per check, which halves the
    steps of an hourly telemetry run's marts."""
    return [
        model_check(m.name, spec, not_configured(m.name))
        for m in models.raw_tables()
        for spec in m.checks
    ]
