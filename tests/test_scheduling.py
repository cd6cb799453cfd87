"""tests/scheduling.py, the order and units `make test` hands its workers (milliseconds)."""

from __future__ import annotations

from types import SimpleNamespace

from tests.conftest import REPO
from tests.scheduling import MODULE_FIXTURE, RANK, SLOW_S, pytest_collection_finish


def test_every_module_named_slow_exists() -> None:
    """A renamed module would silently drop to the back of the queue."""
    assert [p for p in SLOW_S if not (REPO / p).is_file()] == []


def test_slowest_first_and_the_rest_in_collection_order() -> None:
    items = [
        SimpleNamespace(nodeid=n)
        for n in (
            "tests/a/test_quick.py::test_one",
            "tests/cli/test_export_focus.py::test_export_parquet_and_csv",
            "tests/a/test_quick.py::test_two",
            "tests/pipelines/test_run.py::test_rerun_changes_nothing",
            "tests/pipelines/test_bigquery_source.py::test_x[a::b]",
        )
    ]
    session = SimpleNamespace(items=items)
    pytest_collection_finish(session)  # type: ignore[arg-type]
    assert [i.nodeid for i in session.items] == [
        "tests/pipelines/test_bigquery_source.py::test_x[a::b]",  # 525 s
        "tests/pipelines/test_run.py::test_rerun_changes_nothing",  # 365 s
        "tests/cli/test_export_focus.py::test_export_parquet_and_csv",  # 50 s
        "tests/a/test_quick.py::test_one",
        "tests/a/test_quick.py::test_two",
    ]
    assert RANK["tests/pipelines/test_daemon.py"] == 0  # the slowest module in SLOW_S


def test_a_module_scoped_fixture_is_found_however_it_is_spelled() -> None:
    for text in (
        '@pytest.fixture(scope="module")',
        "@pytest.fixture(scope='module', params=[1, 2])",
        "@pytest.fixture(\n    scope = 'module'\n)",
    ):
        assert MODULE_FIXTURE.search(text), text
    for text in ('@pytest.fixture(scope="session")', "@pytest.fixture", 'scope="module"'):
        assert not MODULE_FIXTURE.search(text), text
