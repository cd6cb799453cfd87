"""What `flopledger run` prints: rows per source, the money, and every check that failed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cli.alert_lines import alert_lines
from settings import Config
from cli.headline import headline_lines
from warehouse import Warehouse, open_warehouse


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

