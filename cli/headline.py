"""The headline figures a finance analyst reads after a run: what was billed, what each
run cost, what a million tokens cost, and what sat idle. The queries are in models/queries;
figures are named as docs/glossary.md names them (figures/__init__.py)."""

from decimal import Decimal

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


def _bill_lines(warehouse: Warehouse, currency: str) -> list[str]:
    totals = warehouse.query(query_sql("bill_totals")).to_pylist()[0]
    if not totals["rows_"]:
        return ["", "no billing rows in the warehouse yet"]
    return [
        "",
        f"bill {totals['first_day']} .. {totals['last_day']} ({totals['rows_']:,} rows)",
        f"  {'billed cost':<28}{_money(totals['billed'], currency):>22}",
        f"  {'credits':<28}{_money(totals['credits'], currency):>22}",
        *_amortisation_line(totals, currency),
        f"  {'effective cost':<28}{_money(totals['effective'], currency):>22}",
        *_provider_lines(warehouse, currency),
    ]


def _amortisation_line(totals: dict, currency: str) -> list[str]:
    """FOCUS commitments: EffectiveCost less BilledCost and credits (a savings plan's purchase
    billed up front, its amortised share in its covered rows), shown only when not zero."""
    rest = totals["effective"] - totals["billed"] - totals["credits"]
    return [f"  {'commitment amortisation':<28}{_money(rest, currency):>22}"] if rest else []


def _provider_lines(warehouse: Warehouse, currency: str) -> list[str]:
    """Each provider's effective cost, when the bill has more than one (FOCUS sources)."""
    rows = warehouse.query(query_sql("bill_by_provider")).to_pylist()
    if len(rows) < 2:
        return []
    return [
        f"  {'  of which ' + r['provider']:<28}{_money(r['effective'], currency):>22}"
        f"   ({r['rows_']:,} rows)"
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
    row = warehouse.query(query_sql("where_the_bill_went")).to_pylist()[0]
    unused = {
        figure("unused_commitment_cost").name.lower(): (
            row["unused_commitment"],
            "committed, used by no usage; in no idle share",
        ),
        figure("unused_reservation_cost").name.lower(): (
            row["unused_reservation"],
            "reserved, consumed by no VM; in no idle share",
        ),
    }
    other = (
        row["effective"]
        - (row["runs"] or 0)
        - (row["unallocated_idle"] or 0)
        - sum(amount for amount, _ in unused.values())
    )
    lines = [
        f"  {'cost of runs (' + format(row['run_count'], ',') + ')':<28}{_money(row['runs'], currency):>22}"
    ]
    if row["allocated_idle"] is not None:
        lines.append(
            f"  {'  incl. allocated idle cost':<28}{_money(row['allocated_idle'], currency):>22}"
            "   (held by runs, not busy)"
        )
    lines += [
        f"  {'unallocated idle cost':<28}{_money(row['unallocated_idle'], currency):>22}"
        "   (accelerators paid for, held by no run)",
        *(
            f"  {label:<28}{_money(amount, currency):>22}   ({why})"
            for label, (amount, why) in unused.items()
            if amount
        ),
        f"  {'shared cost':<28}{_money(other, currency):>22}   (storage, network, tax: no run held them)",
        *idle_figure_lines(warehouse),
    ]
    verdict = "yes" if row["books_close"] else "NO: see the books table"
    lines.append(
        f"  books close (runs + idle + unused + shared = effective cost, to the nano-dollar): {verdict}"
    )
    return lines


def _top_runs(warehouse: Warehouse, currency: str) -> list[str]:
    rows = warehouse.query(query_sql("top_runs_by_cost")).to_pylist()
    lines = [
        "",
        f"top runs by cost ({currency})",
        f"  {'run':<28}{'team':<14}{'class':<18}{'acc-hours':>10}{'cost':>14}{'per M tok':>11}",
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
