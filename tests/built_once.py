"""A project built once per test session and copied: a simulated fleet (or a set of
hand-written inputs) through the real pipeline is the dearest fixture there is, and tests on
every xdist worker ask for the same one.

The first process to ask builds it, under a lock, in the folder the workers' temporary folders
share (the parent of each one's basetemp; without xdist, the basetemp itself); every process
then takes a private copy of the whole project (inputs, warehouse, snapshot, run history), so
a test that changes its copy changes no one else's. Build functions take the folder to build
in and return the config's path; simulated configs name their files relative to themselves.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

BUILT = ".built"  # written last: the config's path, relative to the project


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    basetemp = tmp_path_factory.getbasetemp()
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]
) -> Path:
    """The config path of a private copy of project `name`, built by `build` once a session."""
    shared = _shared_root(tmp_path_factory) / "built-once"
    shared.mkdir(exist_ok=True)
    project = shared / name
    with (shared / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process building it: wait for it
        if not (project / BUILT).is_file():
            shutil.rmtree(project, ignore_errors=True)  # a build that failed part way
            project.mkdir()
            config = build(project)
            (project / BUILT).write_text(str(config.relative_to(project)))
    copy = tmp_path_factory.mktemp(name)
    shutil.copytree(project, copy, dirs_exist_ok=True)
    return copy / (project / BUILT).read_text()
