"""The headline figures a finance analyst reads after a run: what was billed, what each
run cost, what a million tokens cost, and what sat idle. The queries are in models/queries;
figures are named as docs/glossary.md names them (figures/__init__.py)."""

from decimal import Decimal
from typing import Any

from flopledger.cli.commitment_plan_lines import commitment_plan_lines
from flopledger.cli.filters import unfiltered
from flopledger.cli.managed_lines import managed_lines
from flopledger.cli.portfolio_lines import portfolio_lines
from flopledger.figures import figure
from flopledger.models import query_sql
from flopledger.warehouse import Warehouse


def _money(amount: Decimal | None, currency: str) -> str:
    return "-" if amount is None else f"{amount:,.2f} {currency}"


def _table_exists(warehouse: Warehouse, name: str) -> bool:
    rows = warehouse.query(query_sql("tables_named"), {"table_name": name}).to_pylist()
    return bool(rows[0]["n"])


def _label(key: str) -> str:
    """A figure's name as the CLI prints it (figures/__init__.py)."""
    return figure(key).name.lower()


def _bill(warehouse: Warehouse, group_by: str | None) -> list[dict[str, Any]]:
    params = unfiltered("bill_totals", group_by=group_by)
    return warehouse.query(query_sql("bill_totals"), params).to_pylist()


def _bill_lines(warehouse: Warehouse, currency: str) -> list[str]:
    rows = warehouse.query(query_sql("billing_bounds")).to_pylist()[0]["rows_"]
    if not rows:
        return ["", "no billing rows in the warehouse yet"]
    totals = _bill(warehouse, None)[0]
    amortisation = totals["commitment_amortisation"]
    return [
        "",
        f"bill {totals['first_day']} .. {totals['last_day']} ({rows:,} rows)",
        *(
            f"  {_label(key):<28}{_money(totals[key], currency):>22}"
            for key in ("billed_cost", "credits")
        ),
        # FOCUS commitments (a savings plan billed up front), shown only when not zero
        *([f"  {_label('commitment_amortisation'):<28}{_money(amortisation, currency):>22}"]
          if amortisation else []),
        f"  {_label('effective_cost'):<28}{_money(totals['effective_cost'], currency):>22}",
        *_provider_lines(warehouse, currency),
    ]  # fmt: skip


def _provider_lines(warehouse: Warehouse, currency: str) -> list[str]:
    """Each provider's effective cost, when the bill has more than one (FOCUS sources)."""
    rows = _bill(warehouse, "provider")
    if len(rows) < 2:
        return []
    return [
        f"  {'  of which ' + r['provider']:<28}{_money(r['effective_cost'], currency):>22}"
        for r in rows
    ]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def idle_figure_lines(warehouse: Warehouse) -> list[str]:
    """The idle shares under their glossary names (figures/__init__.py), each with its basis."""
    params = unfiltered("idle_figures", group_by=None)
    idle = warehouse.query(query_sql("idle_figures"), params).to_pylist()[0]
    paid = idle["paid_accelerator_hours"] or 0
    rows = [
        ("unallocated_idle_share_of_cost", "of the accelerator resource cost"),
        ("idle_share_of_cost", "unallocated + allocated idle, of the same cost"),
        ("unallocated_idle_share_of_hours", f"of {paid:,.0f} paid accelerator-hours"),
    ]
    return [
        f"  {figure(key).name.lower():<34}{_pct(idle[key]):>16}   ({basis})" for key, basis in rows
    ]


def _where_it_went(warehouse: Warehouse, currency: str) -> list[str]:
    """The books' split of the bill (bill_split, as the Chargeback page and the month report
    read it), allocated idle (idle_figures) and whether the books close."""
    params = unfiltered("bill_split", invoice_month=None, group_by=None)
    split = warehouse.query(query_sql("bill_split"), params).to_pylist()[0]
    idle = warehouse.query(query_sql("idle_figures"), unfiltered("idle_figures", group_by=None))
    allocated_idle = idle.to_pylist()[0]["allocated_idle_cost"]
    row = warehouse.query(query_sql("where_the_bill_went")).to_pylist()[0]
    why = {
        "unused_commitment_cost": "committed, used by no usage; in no idle share",
        "unused_reservation_cost": "reserved, consumed by no VM; in no idle share",
    }
    runs = f"{_label('run_cost')} ({row['run_count']:,})"
    lines = [f"  {runs:<28}{_money(split['run_cost'], currency):>22}"]
    if allocated_idle is not None:
        lines.append(
            f"  {'  incl. ' + _label('allocated_idle_cost'):<28}{_money(allocated_idle, currency):>22}"
            "   (held by runs, not busy)"
        )
    lines += [
        f"  {_label('unallocated_idle_cost'):<28}{_money(split['unallocated_idle_cost'], currency):>22}"
        "   (accelerators paid for, held by no run)",
        *(
            f"  {_label(key):<28}{_money(split[key], currency):>22}   ({text})"
            for key, text in why.items()
            if split[key]
        ),
        f"  {_label('shared_cost'):<28}{_money(split['shared_cost'], currency):>22}"
        "   (storage, network, tax: no run held them)",
        *idle_figure_lines(warehouse),
    ]
    verdict = "yes" if row["books_close"] else "NO: see the books table"
    lines.append(
        f"  {_label('books_close')} (runs + idle + unused + shared = effective cost, to the "
        f"nano-dollar): {verdict}"
    )
    return lines


def _top_runs(warehouse: Warehouse, currency: str) -> list[str]:
    params = unfiltered(
        "top_runs", needle="", sort_key="effective_cost", descending=True, row_limit=TOP_RUNS
    )
    rows = warehouse.query(query_sql("top_runs"), params).to_pylist()
    lines = [
        "",
        f"top runs by cost ({currency})",
        f"  {'run':<28}{'team':<14}{'class':<18}{'acc-hours':>10}{'cost':>14}"
        f"{figure('cost_per_million_tokens').short:>11}",
    ]
    for r in rows:
        per_mtok = (
            "-" if r["cost_per_million_tokens"] is None else f"{r['cost_per_million_tokens']:,.4f}"
        )
        lines.append(
            f"  {r['run_id'][:27]:<28}{(r['team'] or '-')[:13]:<14}{r['workload_class'][:17]:<18}"
            f"{r['accelerator_hours']:>10,.1f}{r['effective_cost']:>14,.2f}{per_mtok:>11}"
        )
    return lines


TOKEN_GROUPS = 12  # the biggest spends shown
TOP_RUNS = 5


def _per_token(warehouse: Warehouse, currency: str) -> list[str]:
    by_model_and_class = unfiltered(
        "cost_per_million_tokens_by",
        dimension="model_name",
        second_dimension="workload_class",
        by_day=False,
    )
    rows = warehouse.query(query_sql("cost_per_million_tokens_by"), by_model_and_class).to_pylist()
    if not rows:
        return []
    lines = [
        "",
        f"{figure('cost_per_million_tokens').name.lower()} ({currency}; the {TOKEN_GROUPS} biggest spends)",
        f"  {'model':<22}{'class':<20}{'tokens':>16}{'cost':>14}"
        f"{figure('cost_per_million_tokens').short:>12}",
    ]
    for r in rows[:TOKEN_GROUPS]:
        lines.append(
            f"  {r['dimension_value'][:21]:<22}{r['second_value']:<20}{r['tokens']:>16,}"
            f"{r['started_run_cost']:>14,.2f}{r['cost_per_million_tokens']:>12,.4f}"
        )
    return lines


def headline_lines(warehouse: Warehouse, currency: str) -> list[str]:
    lines = _bill_lines(warehouse, currency)
    if len(lines) > 2 and _table_exists(warehouse, "books"):
        lines += _where_it_went(warehouse, currency)
        lines += _top_runs(warehouse, currency)
        lines += _per_token(warehouse, currency)
    if _table_exists(warehouse, "inference_comparison"):
        lines += managed_lines(warehouse, currency)
    if _table_exists(warehouse, "accelerator_portfolio"):
        lines += portfolio_lines(warehouse, currency)
    if _table_exists(warehouse, "commitment_plan"):
        lines += commitment_plan_lines(warehouse, currency)
    return lines
