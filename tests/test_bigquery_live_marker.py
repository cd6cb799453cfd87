"""The `bigquery_live` marker: its tests are skipped, with the reason, unless a real project
($FLOPLEDGER_BIGQUERY_LIVE_PROJECT) and application-default credentials are there."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests import conftest
from tests.bigquery_live import LIVE_ENV, skip_reason


def never_called() -> str | None:
    raise AssertionError("credentials are looked for only once a project is named")


def test_bigquery_live_skipped_without_a_project() -> None:
    reason = skip_reason({}, credentials=never_called)
    assert reason is not None and LIVE_ENV in reason
    assert skip_reason({LIVE_ENV: ""}, credentials=never_called) == reason


def test_bigquery_live_skipped_without_credentials() -> None:
    reason = skip_reason({LIVE_ENV: "my-project"}, credentials=lambda: "File x was not found.")
    assert reason == "no application-default credentials for my-project: File x was not found."


def test_bigquery_live_runs_with_project_and_credentials() -> None:
    assert skip_reason({LIVE_ENV: "my-project"}, credentials=lambda: None) is None


class Item:
    """What the collection hook reads of a test item: its markers; what it adds."""

    def __init__(self, live: bool) -> None:
        self.live = live
        self.added: list[pytest.MarkDecorator] = []

    def get_closest_marker(self, name: str) -> object | None:
        return SimpleNamespace(name=name) if self.live and name == "bigquery_live" else None

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.added.append(marker)


def test_bigquery_live_collection_hook_skips_only_live_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(LIVE_ENV, raising=False)
    live, plain = Item(live=True), Item(live=False)
    conftest.pytest_collection_modifyitems(None, [live, plain])  # type: ignore[arg-type, list-item]
    assert plain.added == []
    (skip,) = live.added
    assert skip.name == "skip" and LIVE_ENV in skip.kwargs["reason"]
