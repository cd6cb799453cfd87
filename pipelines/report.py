"""What `flopledger run` prints: rows per source, the money, and every check that failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import dagster as dg

from pipelines.budgets.report import alert_lines
from pipelines.config import Config
from pipelines.headline import headline_lines
from pipelines.warehouse import Warehouse, open_warehouse


@dataclass
class CheckResult:
    asset: str
    name: str
    passed: bool
    severity: str
    description: str


@dataclass
class RunReport:
    config: Config
    materialized: dict[str, dict[str, Any]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    snapshot: str | None = None

    @property
    def succeeded(self) -> bool:
        return not self.failures

    @property
    def failed_error_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed and c.severity == "ERROR"]

    @property
    def failed_books_checks(self) -> list[CheckResult]:
        """Failed ERROR checks other than budgets': the numbers themselves are in doubt."""
        return [c for c in self.failed_error_checks if c.asset != "budget_status"]

    def warehouse(self) -> Warehouse:
        return open_warehouse(self.config.warehouse)

    def print(self) -> None:
        print(self.render())

    def render(self) -> str:
        lines = _source_lines(self.materialized)
        if self.succeeded or self.materialized:
            lines += headline_lines(self.warehouse(), self.config.reporting_currency)
        lines += _check_lines(self.checks)
        lines += alert_lines(self.warehouse()) if self.succeeded or self.materialized else []  # budgets: open alerts
        if self.failures:
            lines += ["", "FAILED:"] + [f"  {f}" for f in self.failures]
        lines.append("")
        lines.append(f"warehouse: {self.config.warehouse.path}")
        if self.snapshot:
            lines.append(f"snapshot for readers: {self.snapshot}")
        else:
            lines.append("snapshot NOT published: readers keep the last good one")
        return "\n".join(lines)


def _metadata_value(value: Any) -> Any:
    return getattr(value, "value", value)


def collect_events(report: RunReport, result: dg.ExecuteInProcessResult) -> None:
    """Fold one in-process run's materialisations, failures and check results into the report."""
    for event in result.all_events:
        if event.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION:
            mat = event.step_materialization_data.materialization
            meta = {k: _metadata_value(v) for k, v in mat.metadata.items()}
            report.materialized[mat.asset_key.to_user_string()] = meta
        elif event.event_type == dg.DagsterEventType.STEP_FAILURE:
            report.failures.append(f"{event.step_key}: {_root_cause(event.step_failure_data.error)}")
        elif event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            data = event.event_specific_data
            report.checks.append(
                CheckResult(
                    asset=data.asset_key.to_user_string(),
                    name=data.check_name,
                    passed=data.passed,
                    severity=data.severity.value,
                    description=data.description or "",
                )
            )


def _root_cause(error: Any) -> str:
    """The innermost error's first line: what went wrong, not Dagster's wrapper."""
    while error is not None and error.cause is not None:
        error = error.cause
    if error is None:
        return "failed"
    return error.message.strip().splitlines()[0]


def _source_lines(materialized: dict[str, dict[str, Any]]) -> list[str]:
    rows = [(k, m) for k, m in sorted(materialized.items()) if "rows_read" in m]
    if not rows:
        return []
    lines = ["", f"{'source table':<22}{'read':>10}{'loaded':>10}{'new':>10}{'quarantined':>13}"]
    for key, meta in rows:
        new = meta.get("rows_new", "")
        lines.append(
            f"{key:<22}{meta['rows_read']:>10,}{meta.get('rows_loaded', 0):>10,}"
            f"{new if new == '' else format(new, ','):>10}{meta.get('rows_quarantined', 0):>13,}"
        )
    return lines


def _check_lines(checks: list[CheckResult]) -> list[str]:
    failed = [c for c in checks if not c.passed]
    if not checks:
        return []
    lines = ["", f"checks: {len(checks) - len(failed)} passed, {len(failed)} failed"]
    for c in failed:
        lines.append(f"  {c.severity:<5} {c.asset}.{c.name}: {c.description}")
    return lines

