"""How `make test` spreads the suite over its workers (`pytest -n 3 -p tests.scheduling`):
the slowest modules first, and the tests of a module with a module-scoped fixture on one worker.

pytest-xdist hands tests out in collection order to whichever worker is free. A module of
several minutes collected late keeps one worker busy after the others have finished, so the
modules measured slow (SLOW_S) go first, slowest first; every other test keeps its order after
them. Each test is a unit of its own, given to the next free worker, except that a module that
defines a module-scoped fixture (a fleet through the pipeline, an emulator) is one unit, so the
fixture is built once, not once on each worker that gets one of its tests. (xdist's own
`--dist loadgroup` would do the grouping by mark, but xdist 3.8 renames the test ids through an
attribute pytest 9 no longer reads, so its groups are silently ignored.) Without xdist, or
with a `--dist` other than the default, the order is all that changes.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

# Seconds per module (setup + calls) from `--durations` on a loaded two-core machine (load 8,
# 2026-11-30). Only the order matters: refresh it when a module grows past these.
SLOW_S = {
    "tests/pipelines/test_daemon.py": 600,
    "tests/pipelines/test_bigquery_source.py": 525,
    "tests/pipelines/test_run.py": 365,
    "tests/warehouse/test_incremental.py": 300,  # issue 35 (2026-12-02, loaded): one unit
    "tests/warehouse/test_bigquery_incremental.py": 200,  # one unit (an emulator fixture)
    "tests/simulator/test_managed.py": 140,
    "tests/warehouse/test_bigquery_warehouse_parity.py": 135,
    "tests/pipelines/test_remote_inputs.py": 137,
    "tests/reports/test_month_report.py": 110,
    "tests/budgets/test_notifier.py": 104,
    "tests/simulator/test_end_to_end.py": 75,
    "tests/pipelines/test_snapshot_gate.py": 75,
    "tests/pipelines/test_dagster_cli.py": 68,
    "tests/budgets/test_budget_status.py": 66,
    "tests/dashboards/test_dashboard_providers.py": 70,
    "tests/cli/test_export_focus.py": 50,
    "tests/pipelines/test_probe_source.py": 47,
    "tests/dashboards/test_dashboard_serving.py": 46,
    "tests/pipelines/test_telemetry_run.py": 45,
    "tests/simulator/test_gke_kubernetes.py": 45,
    "tests/models/test_queries.py": 44,
    "tests/cli/test_tables_doc.py": 41,
    "tests/simulator/test_portfolio_fleet.py": 39,
    "tests/hostile/test_hostile_every_source.py": 120,  # issue 36 (2026-12-04, loaded): one unit
    "tests/hostile/test_hostile_run.py": 37,
    "tests/dashboards/test_dashboard_explorer_browser.py": 33,
}
MODULE_FIXTURE = re.compile(r"""fixture\(\s*scope\s*=\s*["']module["']""")
RANK = {path: rank for rank, path in enumerate(sorted(SLOW_S, key=lambda p: -SLOW_S[p]))}


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class ModuleFixtureScheduling(LoadScopeScheduling):
    """xdist's scope scheduling (units in collection order to the first free worker), with a
    unit per test, or per module where the module defines a module-scoped fixture."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.rootpath = config.rootpath
        self.grouped: dict[str, bool] = {}

    def _split_scope(self, nodeid: str) -> str:
        module = _module(nodeid)
        if module not in self.grouped:
            path = self.rootpath / module
            text = path.read_text(errors="replace") if path.is_file() else ""
            self.grouped[module] = MODULE_FIXTURE.search(text) is not None
        return module if self.grouped[module] else nodeid


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None  # another --dist asked for: xdist's own
    config.option.loadscopereorder = False  # keep the order below
    return ModuleFixtureScheduling(config, log)


@pytest.hookimpl(tryfirst=True)  # before an xdist worker sends its collection to the controller
def pytest_collection_finish(session: pytest.Session) -> None:
    session.items.sort(key=lambda item: RANK.get(_module(item.nodeid), len(RANK)))
