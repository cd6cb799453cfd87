"""The month-close report: what finance forwards when an invoice month closes.

`read_month` reads every section through named queries (models/queries/: each figure's own
query, the one the pages and the CLI run, and month_report_*.sql for what only it shows);
`write_month` writes them as CSV files (money exact: Decimal as plain text) and one
self-contained HTML page (reports/html.py) into `<out>/<YYYY-MM>/r<N>/`, and keeps a record of
each written report's totals in `<out>/<YYYY-MM>/manifest.json`. A rerun whose totals equal the
last written report's writes nothing; one whose totals differ (a late row) writes revision N+1,
marked as a revision, with what changed (changes.csv and the page's first section). A month
is reported once it has closed (`closes_at`: `settle_days` after its end); before that only a
provisional page, outside the manifest (`write_provisional`).

The invoice sections follow Google's invoice month (spend_monthly); chargeback, idle, runs and
budgets follow the calendar month (UTC) of the same name, as team_chargeback does. A figure the
CLI and the pages show too (idle, cost per million tokens) is read from its one query
(figures/__init__.py), bound to the month's days.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from flopledger.budgets.alerts import Alert
from flopledger.cells import safe_text
from flopledger.figures import figure
from flopledger.models import query_sql

Rows = list[dict[str, Any]]
Read = Callable[[str, dict[str, Any]], Rows]  # (SQL, bound parameters) -> rows
MONTH_RE = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
TOP = 10
MANIFEST = "manifest.json"
PROVISIONAL = "provisional"  # <out>/<YYYY-MM>/provisional/: a month not closed yet, no revision
SPLIT_PARTS = (
    "run_cost",
    "unallocated_idle_cost",
    "unused_commitment_cost",
    "unused_reservation_cost",
    "shared_cost",
)
UNRECORDED = "late rows (no run recorded the cause)"
# A figure's query with none of the pages' filters (empty lists: all).
NO_FILTER: dict[str, Any] = {
    "providers": [], "teams": [], "projects": [], "classes": [], "accelerators": [],
}  # fmt: skip
NO_FILTER_IDLE: dict[str, Any] = {"providers": [], "projects": [], "accelerators": []}


class ReportError(Exception):
    """A month that cannot be reported (bad name, no data): one line for the user."""


def parse_month(text: str) -> date:
    """'2026-10' -> 2026-10-01; anything else is refused in one line."""
    m = MONTH_RE.match(text.strip())
    try:
        if m:
            return date(int(m.group(1)), int(m.group(2)), 1)
    except ValueError:  # date's own: a year 0, a month 13
        pass
    raise ReportError(f"month must be YYYY-MM, e.g. 2026-10 (got {text!r})")


def previous_month(month: date) -> date:
    return (month - timedelta(days=1)).replace(day=1)


def next_month(month: date) -> date:
    return (month.replace(day=28) + timedelta(days=4)).replace(day=1)


def closed_month(now: datetime, settle_days: int) -> date:
    """The latest month whose end lies `settle_days` or more days before `now`."""
    return previous_month((now - timedelta(days=settle_days)).date().replace(day=1))


def closes_at(month: date, settle_days: int) -> datetime:
    """When a month closes: `settle_days` after its end (the start of the next month)."""
    return datetime.combine(next_month(month), datetime.min.time()) + timedelta(days=settle_days)


def months_to_write(out: Path | str, now: datetime, settle_days: int) -> list[date]:
    """The latest closed month and every closed month already reported under `out` (a late row
    may revise any of them), oldest first."""
    closed = closed_month(now, settle_days)
    months = {closed}
    root = Path(out)
    if root.is_dir():
        for manifest in root.glob(f"*/{MANIFEST}"):
            m = MONTH_RE.match(manifest.parent.name)
            if m:
                month = date(int(m.group(1)), int(m.group(2)), 1)
                if month <= closed:
                    months.add(month)
    return sorted(months)


@dataclass
class MonthReport:
    month: date
    invoice: Rows
    split: Rows
    idle: dict[str, Any]
    chargeback: Rows
    runs: Rows
    groups: Rows
    budgets: Rows
    alerts: Rows
    rates: Rows = field(default_factory=list)  # cost per million tokens per experiment and model
    runs_by_rate: Rows = field(default_factory=list)  # top runs by cost per million tokens
    # Why the month changed after it closed (closed_month_changes: cause, recorded_at).
    causes: Rows = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.month:%Y-%m}"

    def totals(self) -> dict[str, str]:
        """The figures a revision is judged by, as exact decimal text, by name."""
        out: dict[str, str] = {}
        for r in self.invoice:
            acct = f"{r['billing_account_id']} {r['currency']}"
            out[f"invoice {acct} effective_cost_in_currency"] = _text(
                r["effective_cost_in_currency"]
            )
            out[f"invoice {acct} effective_cost"] = _text(r["invoiced_cost"])
        for r in self.split:
            for part in SPLIT_PARTS:
                out[f"books {r['billing_account_id']} {part}"] = _text(r[part])
        for r in self.chargeback:
            out[f"chargeback {r['team']} total_cost"] = _text(r["chargeback"])
        out["invoice effective_cost"] = _text(self.invoice_total())
        out["chargeback total_cost"] = _text(self.chargeback_total())
        return out

    def invoice_total(self) -> Decimal:
        return sum((r["invoiced_cost"] for r in self.invoice), Decimal(0))

    def split_total(self) -> Decimal:
        """The effective cost the books' split adds up to (bill_split)."""
        return sum((r["effective_cost"] for r in self.split), Decimal(0))

    def chargeback_total(self) -> Decimal:
        return sum((r["chargeback"] for r in self.chargeback), Decimal(0))

    def top_runs_by_cost(self) -> Rows:
        return self.runs

    def top_runs_by_cost_per_mtok(self) -> Rows:
        return [r for r in self.runs_by_rate if r["cost_per_million_tokens"] is not None]

    def group_rows(self, grouping: str) -> Rows:
        """Experiments or models: the cost of their runs started this month, tokens, cost per
        million tokens and the month before's cost. The rate is the figure's own
        (cost_per_million_tokens_by: the runs with tokens), so a group's cost may include runs
        without tokens that the rate leaves out."""
        rate = {r["dimension_value"]: r["cost_per_million_tokens"] for r in self.rates
                if r["grouping"] == grouping}  # fmt: skip
        by_name: dict[str, dict[str, Any]] = {}
        for r in self.groups:
            if r["grouping"] != grouping:
                continue
            row = by_name.setdefault(
                r["name"],
                {
                    grouping: r["name"],
                    "started_run_cost": Decimal(0),
                    "tokens": 0,
                    "runs": 0,
                    "previous_started_run_cost": Decimal(0),
                },
            )
            if r["month"] == self.month:
                row["started_run_cost"] = r["started_run_cost"]
                row["tokens"] = int(r["tokens"])
                row["runs"] = int(r["runs"])
            else:
                row["previous_started_run_cost"] = r["started_run_cost"]
        rows = list(by_name.values())
        for row in rows:
            row["cost_per_million_tokens"] = rate.get(row[grouping])
            row["change"] = row["started_run_cost"] - row["previous_started_run_cost"]
        return sorted(rows, key=lambda r: (-r["started_run_cost"], r[grouping]))

    def movers(self) -> Rows:
        """The biggest changes against the month before, teams, experiments and models alike."""
        rows: Rows = []
        for r in self.chargeback:
            before = r["previous_chargeback"] or Decimal(0)
            rows.append(
                {
                    "kind": "team (chargeback)",
                    "name": r["team"],
                    "previous": before,
                    "this_month": r["chargeback"],
                    "change": r["chargeback"] - before,
                }
            )
        for grouping in ("experiment", "model"):
            for r in self.group_rows(grouping):
                rows.append(
                    {
                        "kind": f"{grouping} ({figure('started_run_cost').name.lower()})",
                        "name": r[grouping],
                        "previous": r["previous_started_run_cost"],
                        "this_month": r["started_run_cost"],
                        "change": r["change"],
                    }
                )
        rows = [r for r in rows if r["change"] != 0]
        return sorted(rows, key=lambda r: (-abs(r["change"]), r["kind"], r["name"]))[:TOP]


def read_month(read: Read, month: date) -> MonthReport:
    """Every section of the month's report, read through the named queries. A figure the CLI
    and the pages show too is read from its one query, over the days of the month."""
    previous = previous_month(month)
    end = next_month(month)
    invoice = {"invoice_month": f"{month:%Y%m}"}
    days = {"start_day": month, "end_day": end - timedelta(days=1)}
    idle = read(query_sql("idle_figures"), {**days, **NO_FILTER_IDLE, "group_by": None})
    rates = [
        {**r, "grouping": grouping}
        for grouping, column in (("experiment", "experiment_id"), ("model", "model_name"))
        for r in read(
            query_sql("cost_per_million_tokens_by"),
            {**days, **NO_FILTER, "dimension": column, "second_dimension": None, "by_day": False},
        )
    ]
    every = {"start_day": None, "end_day": None}
    return MonthReport(
        month=month,
        invoice=read(query_sql("month_report_invoice"), invoice),
        split=read(query_sql("bill_split"), {**every, **invoice, "group_by": "billing_account_id"}),
        idle=idle[0] if idle else {},
        chargeback=read(query_sql("chargeback"), days),
        runs=_top_runs(read, days, "effective_cost"),
        groups=_groups(read, month) + _groups(read, previous),
        budgets=read(
            query_sql("month_report_budgets"),
            {"month_start": month, "month_end": end - timedelta(days=1)},
        ),
        alerts=read(
            query_sql("alerts_raised_between"),
            {
                "start": datetime.combine(month, datetime.min.time()),
                "end": datetime.combine(end, datetime.min.time()),
            },
        ),
        rates=rates,
        runs_by_rate=_top_runs(read, days, "cost_per_million_tokens"),
        causes=read(query_sql("closed_month_causes"), {"month": month}),
    )


def _groups(read: Read, month: date) -> Rows:
    """Each experiment's and model's runs started in `month` (run_totals, as the pages total
    runs): their cost, tokens and count."""
    days = {"start_day": month, "end_day": next_month(month) - timedelta(days=1)}
    return [
        {**r, "grouping": grouping, "name": r["group_value"], "month": month}
        for grouping, column in (("experiment", "experiment_id"), ("model", "model_name"))
        for r in read(
            query_sql("run_totals"), {**days, **NO_FILTER, "needle": "", "group_by": column}
        )
    ]


def _top_runs(read: Read, days: dict[str, date], key: str) -> Rows:
    """The TOP runs started in the month, highest `key` first (top_runs, as the CLI and the
    pages read them)."""
    params = {**days, **NO_FILTER, "needle": "", "sort_key": key, "descending": True}
    return read(query_sql("top_runs"), {**params, "row_limit": TOP})


@dataclass
class Written:
    status: str  # written (first), revised, unchanged, provisional (no revision: 0)
    revision: int
    folder: Path
    page: Path
    changes: Rows = field(default_factory=list)
    why: list[str] = field(default_factory=list)  # a revision's causes (revision_reasons)


def _text(value: Any) -> str:
    """A cell as text: Decimal in plain notation (never 1E+3), lists joined, None empty."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, list):
        return ";".join(_text(v) for v in value)
    if isinstance(value, str):
        return safe_text(value)  # a name read as a formula by a spreadsheet is shown, not run
    return str(value)


def _write_csv(path: Path, rows: Rows, columns: list[str]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        for r in rows:
            writer.writerow([_text(r.get(c)) for c in columns])


def load_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    if not path.is_file():
        return {"revisions": []}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: not a readable manifest ({exc.__class__.__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("revisions"), list):
        raise ReportError(f"{path}: not a month report manifest (no revisions list)")
    return data


def changes_between(before: dict[str, str], after: dict[str, str]) -> Rows:
    rows = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        d_old = None if old is None else Decimal(old)
        d_new = None if new is None else Decimal(new)
        change = (d_new or Decimal(0)) - (d_old or Decimal(0))
        rows.append({"figure": name, "before": d_old, "after": d_new, "change": change})
    return rows


def write_month(report: MonthReport, out: Path | str, now: datetime) -> Written:
    """Write the report (or its revision) unless the last written one has the same totals."""
    from flopledger.reports.html import render_page

    month_dir = Path(out) / report.key
    manifest = load_manifest(month_dir)
    totals = report.totals()
    revisions = manifest["revisions"]
    if revisions and revisions[-1]["totals"] == totals:
        last = revisions[-1]
        folder = month_dir / last["folder"]
        return Written("unchanged", last["revision"], folder, folder / last["page"])
    revision = len(revisions) + 1
    changes = changes_between(revisions[-1]["totals"], totals) if revisions else []
    why = revision_reasons(report, revisions[-1]["written_at"]) if revisions else []
    folder = month_dir / f"r{revision}"
    folder.mkdir(parents=True, exist_ok=True)
    _write_sections(report, folder, changes)
    page = folder / f"month-{report.key}-r{revision}.html"
    page.write_text(render_page(report, revision, changes, now, why=why))
    revisions.append(
        {
            "revision": revision,
            "written_at": now.isoformat(),
            "folder": folder.name,
            "page": page.name,
            "totals": totals,
            **({"why": why} if why else {}),
        }
    )
    tmp = month_dir / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps({"month": report.key, "revisions": revisions}, indent=1) + "\n")
    tmp.replace(month_dir / MANIFEST)
    return Written("revised" if revision > 1 else "written", revision, folder, page, changes, why)


def revision_reasons(report: MonthReport, since: str) -> list[str]:
    """Why a revision is written: the causes runs recorded for the month since the last
    revision (`since`, its written_at); none recorded: late rows, as before runs recorded them."""
    after = datetime.fromisoformat(since)
    found = [c["cause"] for c in report.causes if c["recorded_at"] >= after]
    return found or [UNRECORDED]


def write_provisional(
    report: MonthReport, out: Path | str, now: datetime, closes: datetime
) -> Written:
    """A month not yet closed, for a look before it closes: the same CSV files and page, marked
    provisional, in `<out>/<YYYY-MM>/provisional/` (replaced by the next provisional run). Not a
    revision: the manifest is neither read nor written, so the report written when the month
    closes is its revision 1."""
    from flopledger.reports.html import render_page

    folder = Path(out) / report.key / PROVISIONAL
    folder.mkdir(parents=True, exist_ok=True)
    _write_sections(report, folder, [])
    page = folder / f"month-{report.key}-provisional.html"
    page.write_text(render_page(report, 0, [], now, provisional_until=closes))
    return Written("provisional", 0, folder, page)


def _write_sections(report: MonthReport, folder: Path, changes: Rows) -> None:
    money = ["billed_cost", "credits_total", "invoiced_cost"]
    _write_csv(
        folder / "invoice.csv",
        report.invoice,
        ["billing_account_id", "currency"]
        + [f"{m}_in_currency" for m in ("billed_cost", "credits", "effective_cost")]
        + money,
    )
    _write_csv(
        folder / "books_split.csv",
        report.split,
        ["billing_account_id", *SPLIT_PARTS, "effective_cost"],
    )
    _write_csv(
        folder / "idle.csv",
        [report.idle] if report.idle else [],
        [
            "accelerator_cost",
            "unallocated_idle_cost",
            "allocated_idle_cost",
            "paid_accelerator_hours",
            "unallocated_idle_hours",
        ],
    )
    _write_csv(
        folder / "chargeback.csv",
        [
            {**r, "change": r["chargeback"] - (r["previous_chargeback"] or Decimal(0))}
            for r in report.chargeback
        ],
        [
            "team",
            "policy",
            "run_cost",
            "idle_cost_shared",
            "unused_commitment_shared",
            "unused_reservation_shared",
            "shared_cost",
            "chargeback",
            "previous_chargeback",
            "change",
        ],
    )
    run_cols = [
        "run_id",
        "team",
        "experiment_id",
        "model_name",
        "workload_class",
        "accelerator_type",
        "accelerator_hours",
        "effective_cost",
        "tokens",
        "cost_per_million_tokens",
    ]
    _write_csv(folder / "top_runs_by_cost.csv", report.top_runs_by_cost(), run_cols)
    _write_csv(
        folder / "top_runs_by_cost_per_mtok.csv", report.top_runs_by_cost_per_mtok(), run_cols
    )
    for grouping in ("experiment", "model"):
        _write_csv(
            folder / f"{grouping}s.csv",
            report.group_rows(grouping),
            [
                grouping,
                "runs",
                "started_run_cost",
                "tokens",
                "cost_per_million_tokens",
                "previous_started_run_cost",
                "change",
            ],
        )
    _write_csv(
        folder / "movers.csv", report.movers(), ["kind", "name", "previous", "this_month", "change"]
    )
    _write_csv(
        folder / "budgets.csv",
        report.budgets,
        [
            "budget",
            "scope",
            "period_kind",
            "period_key",
            "amount_usd",
            "spend_to_date",
            "percent_used",
            "forecast",
            "thresholds_crossed",
            "over_budget",
        ],
    )
    _write_csv(
        folder / "alerts.csv",
        report.alerts,
        ["alert_id", "kind", "subject", "severity", "title", "raised_at"],
    )
    _write_csv(folder / "changes.csv", changes, ["figure", "before", "after", "change"])


def report_alert(
    report: MonthReport, written: Written, link_base: str | None, channels: list[str]
) -> Alert | None:
    """The alert that says a month's report (or its revision) is written, with its link; None
    when nothing was written. Sent by the alert_notifier sensor like every other alert."""
    if written.status == "unchanged":
        return None
    relative = f"{report.key}/{written.folder.name}/{written.page.name}"
    link = f"{link_base.rstrip('/')}/{relative}" if link_base else str(written.page)
    total = f"{report.invoice_total():,.2f} USD"
    if written.status == "revised":
        why = "; ".join(written.why) or "late rows changed it"
        title = f"Month close {report.key}: revision {written.revision} ({why})"
        changed = "; ".join(
            f"{c['figure']} {_text(c['before']) or '-'} -> {_text(c['after']) or '-'}"
            for c in written.changes[:5]
        )
        message = f"Invoice total now {total}. Changed: {changed}. Report: {link}"
    else:
        title = f"Month close {report.key}: report written"
        message = (
            f"Invoice total {total}; chargeback {report.chargeback_total():,.2f} USD. "
            f"Report: {link}"
        )
    return Alert(
        alert_id=f"month_report:{report.key}:r{written.revision}",
        kind="month_report",
        subject=report.key,
        severity="warning" if written.status == "revised" else "info",
        title=title,
        message=message,
        channels=channels,
        details={
            "month": report.key,
            "revision": written.revision,
            "link": link,
            "invoice_total": _text(report.invoice_total()),
            "chargeback_total": _text(report.chargeback_total()),
            "changes": [
                {k: format(v, "f") if isinstance(v, Decimal) else v for k, v in c.items()}
                for c in written.changes
            ],
        },
    )
