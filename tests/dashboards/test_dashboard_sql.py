"""Parameters are bound by name, and exactly the ones each SQL file uses; DuckDB stays behind
the warehouse's Reader.

Every `data.query("<name>", ...)` and `data.named("<name>", ...)` call under dashboards/ is read
from the source: the names it binds (its keywords, plus the seven filter parameters when it
passes the filters) must be the `$name`s of that query's SQL (a dashboard query with its
fragments spliced in; a named query of models/queries). A misnamed, missing or extra parameter
on either side fails here, before any page is loaded.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from datetime import date
from pathlib import Path

import pytest

from flopledger import models
from flopledger.dashboards import data, queries
from flopledger.dashboards.filters import Filters

DASHBOARDS = Path(__file__).resolve().parents[2] / "dashboards"
# What Filters.params() binds, written out here (sql/fragments/filter_values.sql uses them).
FILTER_NAMES = {
    "start_day", "end_day", "providers", "teams", "projects", "classes", "accelerators"
}  # fmt: skip
# What ExplorerFilters.params() binds (sql/fragments/explorer_filter_values.sql), written out.
EXPLORER_NAMES = {
    "f_provider", "f_billing_account_id", "f_project_id", "f_service_name", "f_sku_description",
    "f_pricing_model", "f_run_team", "f_label_team", "f_run_id", "f_accelerator_type",
    "f_workload_class", "f_cost_part", "f_credit_type", "f_label", "label_key",
}  # fmt: skip


def _call_kind(node: ast.AST) -> str | None:
    """'query' or 'named' for a call of the data layer's query functions, else None."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Name) and func.id in ("query", "named"):
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and func.attr in ("query", "named")
        and isinstance(func.value, ast.Name)
        and func.value.id == "data"
    ):
        return func.attr
    return None


def _bound(call: ast.Call, where: str) -> tuple[str, set[str]]:
    """(query name, parameter names) of one call; names and keywords must be literal."""
    first = call.args[0] if call.args else None
    assert isinstance(first, ast.Constant) and isinstance(first.value, str), where
    keywords = [kw.arg for kw in call.keywords]
    assert None not in keywords, f"{where}: bind parameters by keyword, not **mapping"
    names = {k for k in keywords if k not in {"filters", "explorer"}}
    if len(call.args) > 1 or "filters" in keywords:
        names |= FILTER_NAMES
    if "explorer" in keywords:
        names |= EXPLORER_NAMES
    return first.value, names


def _bindings(kind: str = "query") -> dict[str, list[tuple[str, set[str]]]]:
    """Query name -> (where, names bound) for every `kind` call under dashboards/."""
    found: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for path in sorted(DASHBOARDS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if _call_kind(node) == kind:
                assert isinstance(node, ast.Call)
                where = f"{path.relative_to(DASHBOARDS.parent)}:{node.lineno}"
                name, names = _bound(node, where)
                found[name].append((where, names))
    return found


def named_queries_run() -> list[str]:
    """The named queries (models/queries) the pages run, sorted."""
    return sorted(_bindings("named"))


def _sql_names(name: str) -> set[str]:
    """The `$name`s in a query's SQL as sent (fragments spliced in, comments dropped)."""
    return set(re.findall(r"\$([A-Za-z_]\w*)", queries.text(name)))


def test_every_sql_file_takes_exactly_the_names_the_code_binds() -> None:
    bindings = _bindings()
    assert sorted(bindings) == sorted(queries.names())  # every file is run, and only files
    wrong = [
        f"{where}: {name} binds {sorted(names)}, its SQL takes {sorted(_sql_names(name))}"
        for name, calls in bindings.items()
        for where, names in calls
        if names != _sql_names(name)
    ]
    assert wrong == []


def test_every_named_query_a_page_runs_takes_exactly_the_names_it_binds() -> None:
    """A named query given the filters binds those of the seven it takes (idle capacity has no
    team); every other name is a keyword, and exactly the rest of its parameters."""
    bindings = _bindings("named")
    assert bindings, "the pages run the figures' owning queries"
    wrong = []
    for name, calls in bindings.items():
        used = models.QUERIES.params(name)
        for where, names in calls:
            given_filters = names >= FILTER_NAMES
            bound = (names - FILTER_NAMES) | (used & FILTER_NAMES) if given_filters else names
            if bound != used:
                wrong.append(f"{where}: {name} binds {sorted(bound)}, its SQL takes {sorted(used)}")
    assert wrong == []


def test_the_filters_bind_the_seven_filter_names() -> None:
    assert set(Filters(date(2026, 10, 1), date(2026, 10, 2)).params()) == FILTER_NAMES
    assert _sql_names("spend_trend") == FILTER_NAMES  # the filters alone, from the fragments


def test_no_sql_file_binds_by_position() -> None:
    positional = [name for name in queries.names() if "?" in queries.text(name)]
    assert positional == []


def test_a_wrongly_named_parameter_is_refused_before_the_warehouse() -> None:
    wide = Filters(date(2026, 10, 1), date(2026, 10, 2))
    with pytest.raises(TypeError, match="missing parameters \\['needle'\\]"):
        data.named("run_totals", wide, group_by=None)
    with pytest.raises(TypeError, match="unknown \\['run'\\]"):
        data.query("run_detail", run="run-1", run_id="run-1")


def _duckdb_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        elif isinstance(node, ast.Call):  # __import__("duckdb"), importlib.import_module(...)
            names = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
        found += [f"{path.name}:{node.lineno}" for n in names if n.split(".")[0] == "duckdb"]
    return found


def test_no_dashboard_module_imports_duckdb() -> None:
    found = [hit for path in sorted(DASHBOARDS.rglob("*.py")) for hit in _duckdb_imports(path)]
    assert found == []
