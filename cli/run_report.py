"""What `flopledger run` prints: rows per source, the money, and every check that failed."""

from __future__ import annotations

from typing import Any

from flopledger.budgets.delivery_store import DeliveryStore
from flopledger.cli.alert_lines import alert_lines
from flopledger.cli.headline import headline_lines
from flopledger.ingest.outcome import CheckResult, RunOutcome
from flopledger.warehouse import Warehouse, open_warehouse


def print_report(outcome: RunOutcome) -> None:
    print(render(outcome))


def render(outcome: RunOutcome) -> str:
    """The report `flopledger run` prints, from the outcome and the warehouse it wrote."""
    warehouse = open_warehouse(outcome.config.warehouse)
    with warehouse.held():  # its two dozen queries on one opening of the file
        return _render(outcome, warehouse)


def _render(outcome: RunOutcome, warehouse: Warehouse) -> str:
    lines = _source_lines(outcome.materialized) + _input_warning_lines(outcome.materialized)
    stale = outcome.marts_not_rebuilt
    if stale:
        lines += ["", stale]
    if outcome.closed_months:  # history moved: said, never silent (docs/operations.md)
        lines += ["", *outcome.closed_months]
    if outcome.marts_left:  # nothing the figures come from was rebuilt: none are printed
        lines += ["", outcome.marts_left]
    elif outcome.succeeded or outcome.materialized:
        lines += headline_lines(warehouse, outcome.config.reporting_currency)
    lines += _check_lines(outcome.checks)
    lines += (
        alert_lines(warehouse, DeliveryStore.of(outcome.config))
        if (outcome.succeeded or outcome.materialized) and not outcome.marts_left
        else []
    )  # budgets: open alerts
    if outcome.failures:
        lines += ["", "FAILED:"] + [f"  {f}" for f in outcome.failures]
    lines.append("")
    lines.append(f"warehouse: {warehouse.where()}")
    if outcome.snapshot:
        lines.append(f"snapshot for readers: {outcome.snapshot}")
    elif outcome.marts_left:
        lines.append("snapshot not published: readers keep the last marts run's")
    else:
        lines.append("snapshot NOT published: readers keep the last good one")
    return "\n".join(lines)


def _source_lines(materialized: dict[str, dict[str, Any]]) -> list[str]:
    """Rows per source table: read (counted as found in the files, by the reader) = loaded +
    duplicate + quarantined (+ skipped, rows by design not loaded, e.g. pods with no
    accelerator, with a line saying why; + outside the run's window: each column shown only
    when some were); a row that fits none of these shows as `unaccounted`, never hidden."""
    rows = [(k, m) for k, m in sorted(materialized.items()) if "rows_read" in m]
    if not rows:
        return []
    optional = [c for c in _OPTIONAL if any(m.get(c[0], 0) for _, m in rows)]
    columns = [(k, t, w) for k, (t, w) in zip(_COUNTS, _TITLES, strict=True)] + optional
    # Each column at least two wider than its longest count, so that counts never run together.
    widths = [max(w, max(len(f"{m.get(k, 0):,}") for _, m in rows) + 2) for k, _, w in columns]
    key_width = max(22, max(len(k) for k, _ in rows) + 2)
    head = f"{'source table':<{key_width}}"
    lines = ["", head + "".join(f"{t:>{w}}" for (_, t, _), w in zip(columns, widths, strict=True))]
    notes = []
    for key, meta in rows:
        counts = [meta.get(k, 0) for k in _COUNTS]
        cells = zip(columns, widths, strict=True)
        lines.append(
            f"{key:<{key_width}}" + "".join(f"{meta.get(k, 0):>{w},}" for (k, _, _), w in cells)
        )
        unaccounted = (
            counts[0] - sum(counts[1:]) - sum(meta.get(name, 0) for name, _, _ in optional)
        )
        if unaccounted:
            lines.append(f"  {key}: {unaccounted:,} row(s) read but neither loaded nor refused")
        if meta.get("rows_skipped", 0):
            why = meta.get("skipped_because") or "not loaded by design"
            notes.append(f"  {key}: {meta['rows_skipped']:,} skipped: {why}")
    return lines + notes


_COUNTS = ("rows_read", "rows_loaded", "rows_duplicate", "rows_quarantined")
_TITLES = (("read", 10), ("loaded", 10), ("duplicate", 11), ("quarantined", 13))
# Columns shown only when some source has any: (metadata key, title, width).
_OPTIONAL = (("rows_skipped", "skipped", 10), ("rows_outside_window", "outside window", 16))


def _input_warning_lines(materialized: dict[str, dict[str, Any]]) -> list[str]:
    """The inputs' warnings (ingest/inputs.py: `input_warnings` metadata), each said once."""
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
