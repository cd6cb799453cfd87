"""The month report as one self-contained HTML page: inline CSS, hand-made inline SVG bars, no
script and nothing fetched, so it can be forwarded as a file. Figures are named as
docs/glossary.md names them (figures/__init__.py)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from html import escape
from typing import TYPE_CHECKING, Any

from flopledger.figures import figure

if TYPE_CHECKING:
    from flopledger.reports.month import MonthReport, Rows

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0} th,td{padding:3px 8px;border-bottom:1px solid #eee}
th{text-align:left;background:#f4f4f4} td.n{text-align:right;font-variant-numeric:tabular-nums}
.revision{background:#fff3cd;border:1px solid #e0b400;padding:.6em 1em}
.note{color:#666;font-size:12px}
"""
COLOURS = {
    "run": "#4c78a8",
    "idle": "#f58518",
    "commitment": "#e45756",
    "reservation": "#b279a2",
    "shared": "#9d9d9d",
    "prev": "#bbbbbb",
}


def money(value: Any) -> str:
    if value is None:
        return "—"
    return f"{Decimal(value):,.2f}"


def _signed(value: Any) -> str:
    return ("+" if Decimal(value) > 0 else "") + money(value)


def _table(rows: Rows, columns: list[tuple[str, str, str]]) -> str:
    """columns: (key, heading, kind) with kind money, signed, number, pct or text."""
    if not rows:
        return "<p class=note>None in this month.</p>"
    head = "".join(f"<th>{escape(h)}</th>" for _, h, _ in columns)
    body = []
    for r in rows:
        cells = []
        for key, _, kind in columns:
            v = r.get(key)
            if kind == "money":
                cells.append(f"<td class=n>{money(v)}</td>")
            elif kind == "signed":
                cells.append(f"<td class=n>{_signed(v) if v is not None else '—'}</td>")
            elif kind == "number":
                cells.append(f"<td class=n>{'—' if v is None else f'{v:,.1f}'}</td>")
            elif kind == "pct":
                cells.append(f"<td class=n>{'—' if v is None else f'{v:.1f}%'}</td>")
            else:
                text = ", ".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v)
                cells.append(f"<td>{escape(str(text))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _stacked_bars(rows: Rows, label: str, parts: list[tuple[str, str, str]]) -> str:
    """One horizontal stacked bar per row; parts: (key, name, colour). Negative parts are 0."""
    if not rows:
        return ""
    widest = max(sum(max(Decimal(r[k]), Decimal(0)) for k, _, _ in parts) for r in rows) or 1
    height = 26 * len(rows) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="{height}" role="img">']
    for i, r in enumerate(rows):
        y = 8 + 26 * i
        out.append(f'<text x="0" y="{y + 14}" font-size="12">{escape(str(r[label])[:28])}</text>')
        x = Decimal(200)
        for key, name, colour in parts:
            w = max(Decimal(r[key]), Decimal(0)) * 600 / widest
            out.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="18" fill="{colour}">'
                f"<title>{escape(name)}: {money(r[key])}</title></rect>"
            )
            x += w
    legend_y = height - 8
    lx = 200
    for _, name, colour in parts:
        out.append(f'<rect x="{lx}" y="{legend_y - 10}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{lx + 14}" y="{legend_y}" font-size="11">{escape(name)}</text>')
        lx += 16 + 7 * len(name)
    out.append("</svg>")
    return "".join(out)


def _paired_bars(rows: Rows, label: str, now_key: str, before_key: str) -> str:
    """This month (dark) over the month before (grey), one pair per row."""
    if not rows:
        return ""
    widest = max(max(abs(r[now_key] or 0), abs(r[before_key] or 0)) for r in rows) or 1
    height = 34 * len(rows) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="900" height="{height}" role="img">']
    for i, r in enumerate(rows):
        y = 6 + 34 * i
        out.append(f'<text x="0" y="{y + 14}" font-size="12">{escape(str(r[label])[:28])}</text>')
        for j, (key, colour) in enumerate(
            ((now_key, COLOURS["run"]), (before_key, COLOURS["prev"]))
        ):
            value = Decimal(r[key] or 0)
            w = abs(value) * 600 / Decimal(widest)
            out.append(
                f'<rect x="200" y="{y + 14 * j}" width="{w:.1f}" height="12" fill="{colour}"/>'
                f'<text x="{205 + float(w):.1f}" y="{y + 14 * j + 10}" font-size="10">'
                f"{money(value)}</text>"
            )
    out.append("</svg>")
    return "".join(out)


def render_page(
    report: MonthReport,
    revision: int,
    changes: Rows,
    now: datetime,
    provisional_until: datetime | None = None,
    why: list[str] | tuple[str, ...] = (),
) -> str:
    """The page; with `provisional_until` (when the month closes) a provisional page, no revision."""
    key = report.key
    eff, run, idle, shared = (
        figure(k).name
        for k in ("effective_cost", "run_cost", "unallocated_idle_cost", "shared_cost")
    )
    commitment, reservation = (
        figure(k).name for k in ("unused_commitment_cost", "unused_reservation_cost")
    )
    which = "PROVISIONAL" if provisional_until else f"revision {revision}"
    parts = [
        f"<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>Month close {key} ({which})</title><style>{CSS}</style></head><body>",
        f"<h1>Month close: {key}{' (provisional)' if provisional_until else ''}</h1>",
        f"<p class=note>Written {now:%Y-%m-%d %H:%M} UTC by flopledger · {which}. "
        "Money in USD unless a currency is named; CSV files beside this page hold every figure "
        "exactly.</p>",
    ]
    if provisional_until:
        parts.append(
            f"<div class=revision id=provisional><strong>Provisional</strong>: {key} is not "
            f"closed; it closes {provisional_until:%Y-%m-%d %H:%M} UTC (month_report.settle_days "
            "after its end) and late rows may still change every figure. This page is not the "
            "month's report and not a revision of it.</div>"
        )
    if revision > 1:
        parts.append(
            f"<div class=revision id=revision><strong>Revision {revision}</strong>: this month "
            f"changed after the last report. Why: {escape('; '.join(why) or 'late rows')}. "
            "What changed:"
            + _table(
                changes,
                [
                    ("figure", "Figure", "text"),
                    ("before", "Before", "money"),
                    ("after", "After", "money"),
                    ("change", "Change", "signed"),
                ],
            )
            + "</div>"
        )
    invoiced = figure("invoiced_cost").name
    parts.append(f"<h2>Invoice reconciliation (invoice month {report.month:%Y%m})</h2>")
    parts.append(
        _table(
            report.invoice,
            [
                ("billing_account_id", "Billing account", "text"),
                ("currency", "Currency", "text"),
                ("billed_cost_in_currency", f"{figure('billed_cost').name} (currency)", "money"),
                ("credits_in_currency", f"{figure('credits').name} (currency)", "money"),
                ("effective_cost_in_currency", f"{invoiced} (currency)", "money"),
                ("billed_cost", f"{figure('billed_cost').name} (USD)", "money"),
                ("credits_total", f"{figure('credits').name} (USD)", "money"),
                ("invoiced_cost", f"{invoiced} (USD)", "money"),
            ],
        )
    )
    parts.append(
        f"<p>Invoice total ({invoiced.lower()}): <strong>{money(report.invoice_total())} USD"
        f"</strong>. The books' split below adds up to the {eff.lower()}, "
        f"{money(report.split_total())} USD: a FOCUS provider's commitment amortisation "
        "(EffectiveCost less BilledCost) is the difference.</p>"
    )
    parts.append("<h3>The books' split of the invoice (USD)</h3>")
    parts.append(
        _table(
            report.split,
            [
                ("billing_account_id", "Billing account", "text"),
                ("run_cost", run, "money"),
                ("unallocated_idle_cost", idle, "money"),
                ("unused_commitment_cost", commitment, "money"),
                ("unused_reservation_cost", reservation, "money"),
                ("shared_cost", shared, "money"),
                ("effective_cost", eff, "money"),
            ],
        )
    )
    parts.append(
        _stacked_bars(
            report.split,
            "billing_account_id",
            [
                ("run_cost", run, COLOURS["run"]),
                ("unallocated_idle_cost", idle, COLOURS["idle"]),
                ("unused_commitment_cost", commitment, COLOURS["commitment"]),
                ("unused_reservation_cost", reservation, COLOURS["reservation"]),
                ("shared_cost", shared, COLOURS["shared"]),
            ],
        )
    )
    i = report.idle or {}
    parts.append(
        f"<p>Idle in the calendar month: {figure('accelerator_cost').name} "
        f"{money(i.get('accelerator_cost'))}; "
        f"{idle} {money(i.get('unallocated_idle_cost'))}; {figure('allocated_idle_cost').name} "
        f"{money(i.get('allocated_idle_cost'))} (part of the {run.lower()}; — without telemetry).</p>"
    )
    parts.append(f"<h2>{figure('chargeback').name} per team (calendar month {key})</h2>")
    policy = report.chargeback[0]["policy"] if report.chargeback else "—"
    parts.append(f"<p>Shared-cost policy: <strong>{escape(str(policy))}</strong>.</p>")
    charge_rows = [
        {**r, "change": r["chargeback"] - (r["previous_chargeback"] or Decimal(0))}
        for r in report.chargeback
    ]
    parts.append(
        _table(
            charge_rows,
            [
                ("team", figure("run_owner_team").name, "text"),
                ("run_cost", run, "money"),
                ("idle_cost_shared", f"{idle} (spread)", "money"),
                ("unused_commitment_shared", f"{commitment} (spread)", "money"),
                ("unused_reservation_shared", f"{reservation} (spread)", "money"),
                ("shared_cost", f"{shared} (spread)", "money"),
                ("chargeback", figure("chargeback").name, "money"),
                ("previous_chargeback", "Month before", "money"),
                ("change", "Change", "signed"),
            ],
        )
    )
    parts.append(
        f"<p>Chargeback total: <strong>{money(report.chargeback_total())} USD</strong></p>"
    )
    parts.append(_paired_bars(charge_rows, "team", "chargeback", "previous_chargeback"))
    run_cols = [
        ("run_id", "Run", "text"),
        ("team", figure("run_owner_team").name, "text"),
        ("experiment_id", "Experiment", "text"),
        ("model_name", "Model", "text"),
        ("effective_cost", run, "money"),
        ("cost_per_million_tokens", figure("cost_per_million_tokens").name, "money"),
    ]
    parts.append("<h2>Top runs (started in the month)</h2><h3>By cost</h3>")
    parts.append(_table(report.top_runs_by_cost(), run_cols))
    parts.append("<h3>By cost per million tokens</h3>")
    parts.append(_table(report.top_runs_by_cost_per_mtok(), run_cols))
    for grouping in ("experiment", "model"):
        rows = [r for r in report.group_rows(grouping) if r["runs"]][:10]
        parts.append(f"<h3>Top {grouping}s</h3>")
        parts.append(
            _table(
                rows,
                [
                    (grouping, grouping.capitalize(), "text"),
                    ("runs", "Runs", "text"),
                    ("started_run_cost", figure("started_run_cost").name, "money"),
                    ("cost_per_million_tokens", figure("cost_per_million_tokens").name, "money"),
                    ("previous_started_run_cost", "Month before", "money"),
                    ("change", "Change", "signed"),
                ],
            )
        )
    parts.append("<h2>Biggest movers against the month before</h2>")
    movers = report.movers()
    parts.append(
        _table(
            movers,
            [
                ("kind", "What", "text"),
                ("name", "Name", "text"),
                ("previous", "Month before", "money"),
                ("this_month", "This month", "money"),
                ("change", "Change", "signed"),
            ],
        )
    )
    parts.append("<h2>Budgets</h2>")
    parts.append(
        _table(
            report.budgets,
            [
                ("budget", "Budget", "text"),
                ("scope", "Scope", "text"),
                ("period_key", "Period", "text"),
                ("amount_usd", figure("amount_usd").name, "money"),
                ("spend_to_date", figure("spend_to_date").name, "money"),
                ("percent_used", figure("percent_used").name, "pct"),
                ("forecast", figure("forecast").name, "money"),
                ("over_budget", "Over budget", "text"),
            ],
        )
    )
    parts.append("<h2>Alerts raised in the month</h2>")
    parts.append(
        _table(
            report.alerts,
            [
                ("raised_at", "Raised (UTC)", "text"),
                ("severity", "Severity", "text"),
                ("kind", "Kind", "text"),
                ("title", "Alert", "text"),
            ],
        )
    )
    parts.append("</body></html>\n")
    return "\n".join(parts)
