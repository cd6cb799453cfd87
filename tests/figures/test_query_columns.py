"""Every column the pages, the CLI, the month report and budgets read is named for what it is.

A query's output column (its outermost SELECT, the first branch of a UNION) must be one of:
- a figure's key (figures/__init__.py), e.g. `started_run_cost`, `idle_share_of_cost`;
- `previous_<figure key>`: the same figure over the period before;
- a warehouse column under its own name: the column itself, or an expression of it alone
  (`sum(unused_cost) AS unused_cost`, `coalesce(t.shared_cost, 0) AS shared_cost`);
- one of NOT_FIGURES below: what is not a figure at all (a grouping, a count, a day, an id),
  each with its reason. None of them is money.

So `sum(effective_cost) AS effective_usd`, `cost AS cost_usd` or `unused_cost AS unused_usd`
fail here: a money column is shown under its figure's key or its table's own name, never a
third name. The queries are the ones those rooms name (dashboards/sql/ and models/queries/).
"""

from __future__ import annotations

import ast

import sqlglot
from sqlglot import exp

from flopledger import models
from flopledger.dashboards import queries
from flopledger.figures import BY_KEY
from tests.conftest import REPO

ROOMS = ("cli", "dashboards", "reports", "budgets")
# Output columns that are not figures, and why. Nothing here holds money.
NOT_FIGURES = {
    # groupings and dimensions
    "group_value": "the value of the chosen grouping",
    "dimension_value": "the value of the chosen dimension",
    "second_value": "the value of the second dimension",
    "dimension": "a filter's dimension (options)",
    "value": "a filter option or label value",
    "figure": "the name of a figure a closed month is watched by (month_figures_seen)",
    "accelerator": "an accelerator type, '(cpu)' for probes without one",
    "cheapest_provider": "the provider a comparison is priced at",
    "model": "a model's name",
    "reservation": "a reservation's name",
    "weekday": "ISO weekday",
    "hour_of_day": "UTC hour of day",
    "source": "an input source's name",
    "table_name": "a table's name",
    "time_column": "the column a source's freshness is read from",
    # days and times
    "first_day": "first UTC day of what was summed",
    "last_day": "last UTC day of what was summed",
    "first": "first billed UTC day",
    "last": "end of the latest billed usage window",
    "latest": "latest time a source holds",
    "day": "a UTC day",
    # counts
    "runs": "how many runs",
    "rows_": "how many billing rows",
    "run_count": "how many runs have a cost",
    "providers": "how many managed providers",
    "commitment_days": "how many commitment-days",
    "nodes": "how many probed nodes",
    "results": "how many probe results",
    "failed_results": "how many probe results failed verification",
    "nodes_with_ceiling_drop": "how many nodes' measured ceiling fell",
    "n": "a count",
    "gpu": "a GPU's errors (health)",
    "xid": "XID errors (health)",
    "ecc": "ECC errors (health)",
    "failed": "failed probes (health)",
    "rank_": "a family's rank by cost per million tokens in its class",
    # tokens, hours, TFLOP/s and latency: not money
    "tokens": "tokens (in + out)",
    "self_hosted_tokens": "the self-hosted runs' tokens (in + out)",
    "held_accelerator_hours": "a run's accelerator-hours in a resource-hour",
    "best_achieved_tflops": "best probe-measured TFLOP/s",
    "median_node_tflops": "median of the nodes' best TFLOP/s",
    "spec_tflops": "spec peak TFLOP/s",
    "median_efficiency_pct": "median probe efficiency against spec (percent)",
    "before_tflops": "a node's earlier best TFLOP/s (health)",
    "now_tflops": "a node's TFLOP/s now (health)",
    "worst_daily_p95_ms": "the worst daily p95 latency (ms)",
    # flags and keys
    "overrun": "whether a budget's forecast overruns",
    "taken_through": "how far an export was read",
}


def _named_in(room: str) -> set[str]:
    """String constants in a room's code: the query names it runs among them."""
    found: set[str] = set()
    for path in (REPO / room).rglob("*.py"):
        tree = ast.parse(path.read_text())
        found |= {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
    return found


def _read() -> dict[str, str]:
    """Query name -> SQL, for every query the four rooms name."""
    named = set().union(*(_named_in(room) for room in ROOMS))
    texts = {
        f"models/queries/{n}": models.query_sql(n) for n in models.QUERIES.names() if n in named
    }
    texts |= {f"dashboards/sql/{n}": queries.text(n) for n in queries.names() if n in named}
    return texts


def _warehouse_columns() -> set[str]:
    """Every documented column of the warehouse: raw tables, marts and its own bookkeeping."""
    tables = (*models.raw_tables(), *models.marts(), *models.bookkeeping_tables())
    return {c for m in tables for c in m.column_comments}


def _outputs(sql: str) -> list[exp.Expression]:
    """The columns a query returns (none for a statement that returns no rows)."""
    tree = sqlglot.parse_one(sql, read="duckdb")
    while isinstance(tree, exp.SetOperation):
        tree = tree.left
    return list(tree.expressions) if isinstance(tree, exp.Select) else []


def _wrong(column: exp.Expression, known: set[str]) -> str | None:
    name = column.alias_or_name
    if name in BY_KEY or name in NOT_FIGURES:
        return None
    if name.startswith("previous_") and name.removeprefix("previous_") in BY_KEY:
        return None
    if isinstance(column, exp.Star):
        return "*: say which columns"
    read = {c.name for c in column.find_all(exp.Column)}
    if name in known and read <= {name}:
        return None  # the warehouse column itself, or an expression of it alone
    return f"{name} ({column.sql('duckdb')[:60]})"


# Queries that hand over a table whole, as its model defines every column.
WHOLE_TABLES = {"models/queries/focus_costs_export": "the FOCUS 1.2 dataset, focus_costs"}


def test_every_output_column_is_a_figure_or_a_column_under_its_own_name() -> None:
    known = _warehouse_columns()
    texts = {k: v for k, v in _read().items() if k not in WHOLE_TABLES}
    assert len(texts) > 30, sorted(texts)  # the pages', the CLI's, the report's and budgets'
    wrong = [
        f"{name}: {problem}"
        for name, sql in sorted(texts.items())
        for column in _outputs(sql)
        if (problem := _wrong(column, known))
    ]
    assert wrong == []


def test_the_rule_refuses_a_renamed_money_column() -> None:
    known = _warehouse_columns()
    [renamed] = _outputs("SELECT sum(s.effective_cost) AS effective_usd FROM spend_daily AS s")
    [kept] = _outputs("SELECT sum(s.effective_cost) AS effective_cost FROM spend_daily AS s")
    [other] = _outputs("SELECT sum(c.unused_cost) AS unused_usd FROM commitment_utilisation AS c")
    assert _wrong(renamed, known) and _wrong(other, known)
    assert _wrong(kept, known) is None


def test_nothing_listed_as_not_a_figure_is_a_figure() -> None:
    assert sorted(set(NOT_FIGURES) & set(BY_KEY)) == []
