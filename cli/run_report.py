"""What `flopledger run` prints: rows per source, the money, and every check that failed."""

from __future__ import annotations

from typing import Any

from cli.alert_lines import alert_lines
from cli.headline import headline_lines
from pipelines.outcome import CheckResult, RunOutcome
from warehouse import open_warehouse


def print_report(outcome: RunOutcome) -> None:
    print(render(outcome))


def render(outcome: RunOutcome) -> str:
    """The report `flopledger run` prints, from the outcome and the warehouse it wrote."""
    warehouse = open_warehouse(outcome.config.warehouse)
    lines = _source_lines(outcome.materialized) + _input_warning_lines(outcome.materialized)
    if outcome.succeeded or outcome.materialized:
        lines += headline_lines(warehouse, outcome.config.reporting_currency)
    lines += _check_lines(outcome.checks)
    lines += (
        alert_lines(warehouse) if outcome.succeeded or outcome.materialized else []
    )  # budgets: open alerts
    if outcome.failures:
        lines += ["", "FAILED:"] + [f"  {f}" for f in outcome.failures]
    lines.append("")
    lines.append(f"warehouse: {outcome.config.warehouse.path}")
    if outcome.snapshot:
        lines.append(f"snapshot for readers: {outcome.snapshot}")
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


def _input_warning_lines(materialized: dict[str, dict[str, Any]]) -> list[str]:
    """The inputs' warnings (pipelines/inputs.py: `input_warnings` metadata), each said once."""
    seen: list[str] = []
    for _, meta in sorted(materialized.items()):
        for warning in str(meta.get("input_warnings") or "").splitlines():
            if warning and warning not in seen:
                seen.append(warning)
    return ["", "input warnings:", *(f"  {w}" for w in seen)] if seen else []


def _check_lines(checks: list[CheckResult]) -> list[str]:
    failed = [c for c in checks if not c.passed]
    if not checks:
        return []
    lines = ["", f"checks: {len(checks) - len(failed)} passed, {len(failed)} failed"]
    for c in failed:
        lines.append(f"  {c.severity:<5} {c.asset}.{c.name}: {c.description}")
    return lines
