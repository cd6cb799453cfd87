"""Watch closed months in every marts run: a scheduled run says what it moved, as the CLI does.

The asset `closed_month_changes` follows the marts closed months are watched by (team_chargeback
and spend_daily) and precedes the snapshot. It compares only the months those marts rebuilt
since its own last run (their changes in the bookkeeping) against the figures it stored for
them then (bookkeeping.month_figures), so its cost follows what changed, never the history's
length. A closed month whose figure moved (reports/closed_months.py) is a row of
closed_month_changes with the run's cause, which the month close's next revision gives as its
reason; the run's report and the asset's metadata say it. A month seen the first time moves
nothing. The cause is the CAUSE_TAG the run carries (`flopledger restate` sets its own), else
a late row: what any scheduled run that changes a closed month has met."""

from datetime import date, datetime

import dagster as dg
import pyarrow as pa

from flopledger import models
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import CAUSE_TAG, run_now
from flopledger.reports import closed_months
from flopledger.warehouse.base import Warehouse

CHANGES = "closed_month_changes"
WATCHED = ("team_chargeback", "spend_daily")
WATCH_VERSION = "month_figures v1"  # its bookkeeping.builds row's hash: a new version compares all

# closed_month_changes' columns (models/raw/closed_month_changes.sql), money exact.
CHANGE_SCHEMA = pa.schema(
    [
        ("change_id", pa.string()),
        ("month", pa.date32()),
        ("figure", pa.string()),
        ("before_value", pa.decimal128(38, 12)),
        ("after_value", pa.decimal128(38, 12)),
        ("cause", pa.string()),
        ("recorded_at", pa.timestamp("us")),
    ]
)


def _next_month(month: date) -> date:
    return date(month.year + month.month // 12, month.month % 12 + 1, 1)


def _all_months(warehouse: Warehouse) -> list[date]:
    span = warehouse.query(models.query_sql("month_figures_span")).to_pylist()[0]
    first, last = span["first_month"], span["last_month"]
    months = []
    while first is not None and first <= last:
        months.append(first)
        first = _next_month(first)
    return months


def _changed_months(warehouse: Warehouse, since: int | None) -> list[date]:
    """The months the watched marts changed after change `since` (None: never watched)."""
    if not all(warehouse.has_table(t) for t in WATCHED):
        return []
    changed = warehouse.pending_changes(WATCHED, -1 if since is None else since)
    if None in changed:  # a table rebuilt whole (a full build): every month it holds
        return _all_months(warehouse)
    return sorted({d.replace(day=1) for d in changed if d is not None})


def _seen(warehouse: Warehouse, months: list[date]) -> closed_months.Totals:
    rows = warehouse.query(models.query_sql("month_figures_seen"), {"months": months}).to_pylist()
    return {(r["month"], r["figure"]): r["value"] for r in rows}


def watch(
    warehouse: Warehouse, now: datetime, settle_days: int, cause: str
) -> list[closed_months.MonthChange]:
    """Compare the months changed since the last watch with their stored figures, store the
    new ones, and record (closed_month_changes) the figures of closed months that moved."""
    seq = warehouse.bookkeeping_seq()
    last = warehouse.last_build(CHANGES)
    since = last[1] if last is not None and last[0] == WATCH_VERSION else None
    months = _changed_months(warehouse, since)
    changes: list[closed_months.MonthChange] = []
    if months:
        before = _seen(warehouse, months)
        params = {"months": months, "first": months[0], "end": _next_month(months[-1])}
        warehouse.execute(models.query_sql("month_figures_forget"), {"months": months})
        warehouse.execute(models.query_sql("month_figures_store"), params)
        changes = closed_months.closed_changes(before, _seen(warehouse, months), now, settle_days)
    if changes:
        rows = closed_months.change_rows(changes, cause, now)
        table = pa.Table.from_pylist(rows, schema=CHANGE_SCHEMA)
        warehouse.insert_new(CHANGES, table, "change_id")
    scope = f"{len(months)} month(s)" if months else "nothing"
    warehouse.mark_built(CHANGES, WATCH_VERSION, seq, scope, len(changes))
    return changes


@dg.asset(
    name=CHANGES,
    group_name="marts",
    deps=list(WATCHED),
    kinds={"duckdb"},
    description="Which figures of closed months a run changed, and why: compared for the "
    "months the marts rebuilt (pipelines/marts/closed_months.py).",
)
def closed_month_changes(
    context: dg.AssetExecutionContext, flopledger: Flopledger
) -> dg.MaterializeResult:
    changes = watch(
        flopledger.warehouse(),
        run_now(context, flopledger),
        flopledger.config().month_report.settle_days,
        context.run.tags.get(CAUSE_TAG, closed_months.LATE_ROWS),
    )
    lines = closed_months.describe(changes)
    for line in lines:
        context.log.warning(line)
    return dg.MaterializeResult(
        metadata={
            "changed": dg.MetadataValue.int(len(changes)),
            "closed_months": dg.MetadataValue.text("\n".join(lines)),
        }
    )
