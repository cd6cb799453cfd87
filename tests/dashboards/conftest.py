"""Fixtures: a warehouse built by the fleet simulator and the real pipeline; pages opened by AppTest."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.built_once import built_once
from tests.conftest import HANG_S
from tests.dashboards.helpers import APP, PAGES, Marts, build_fleet, build_two_clouds


@pytest.fixture(scope="session")
def fleet_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The simulated fleet through the pipeline: built once a session (tests/built_once.py)."""
    return built_once(tmp_path_factory, "fleet", build_fleet)


@pytest.fixture(scope="session")
def two_clouds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A GCP fleet beside an AWS segment (FOCUS 1.2): pages with two providers."""
    return built_once(tmp_path_factory, "two_clouds", build_two_clouds)


@pytest.fixture(scope="session")
def marts(fleet_config: Path) -> Marts:
    return Marts(fleet_config)


@pytest.fixture
def fleet_copy(fleet_config: Path, tmp_path: Path) -> Path:
    """A private copy of the simulated project (its warehouse may be changed by the test)."""
    target = tmp_path / "fleet"
    shutil.copytree(fleet_config.parent, target)
    return target / fleet_config.name


@pytest.fixture
def open_page(monkeypatch: pytest.MonkeyPatch, fleet_config: Path):
    """open_page(name, query_params=None, config=None) -> AppTest after the page has run."""

    def _open(
        name: str, query_params: dict[str, Any] | None = None, config: Path | None = None
    ) -> AppTest:
        monkeypatch.setenv("FLOPLEDGER_CONFIG", str(config or fleet_config))
        at = AppTest.from_file(str(APP), default_timeout=HANG_S)
        for key, value in (query_params or {}).items():
            at.query_params[key] = value
        at.run()
        if PAGES[name]:
            at.switch_page(PAGES[name])
            at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        return at

    return _open
