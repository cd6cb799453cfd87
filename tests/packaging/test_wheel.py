"""The wheel installs and runs (issue 34): `uv build --wheel`, pip installs it into a fresh
virtual environment, and from a folder outside the checkout every command answers `--help`
and a one-VM, one-day fleet goes through `flopledger simulate` and `flopledger run`.

The dependencies go in first, from uv's cache: fetching the wheel's ~130 dependencies from
PyPI on every run would take minutes and need the network. `uv sync --frozen --offline
--no-install-project` installs the lock's exact set, which `make setup` has already put in the
cache, without touching the network (`uv export` then `uv pip install --offline -r` does not
work: a resolve needs the index's pages, which a locked sync never caches). The files are
links into the cache (`--link-mode symlink`: a copy is 1.4 GB). Then pip installs the wheel
alone (`--no-deps --no-index`), as a user's `pip install` of it would, and `pip check` says
whether that locked set satisfies the requirements the wheel declares.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from flopledger.cli.main import COMMANDS
from tests.conftest import HANG_S, REPO

pytestmark = pytest.mark.slow

ROOMS = sorted(p.name for p in (REPO / "flopledger").iterdir() if p.is_symlink())
UNSET = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "DAGSTER_HOME", "FLOPLEDGER_CONFIG")


def _uv() -> str:
    uv = REPO / ".tools" / "bin" / "uv"
    assert uv.exists(), "uv not found: run `make setup` (it installs .tools/bin/uv)"
    return str(uv)


def _run(*args: str | Path, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run a command to the end (HANG_S only ends a hang) and hold it to exit code 0."""
    kwargs.setdefault("timeout", HANG_S)
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run(_uv(), "build", "--wheel", "--quiet", "--out-dir", out, REPO)
    [built] = out.glob("flopledger-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv")
    base = getattr(sys, "_base_executable", sys.executable)  # not the checkout's .venv
    _run(base, "-m", "venv", venv)
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env |= {"UV_PROJECT_ENVIRONMENT": str(venv), "UV_PYTHON_DOWNLOADS": "never"}
    _run(
        _uv(), "sync", "--project", REPO, "--frozen", "--offline", "--no-dev",
        "--no-install-project", "--inexact", "--link-mode", "symlink", "--quiet",
        env=env,
    )  # fmt: skip
    python = venv / "bin" / "python"
    pip = (python, "-m", "pip", "--disable-pip-version-check")
    _run(*pip, "install", "--no-deps", "--no-index", "--quiet", wheel, env=env)
    _run(*pip, "check", env=env)
    return venv


@dataclass(frozen=True)
class Outside:
    """Runs the venv's commands from a folder outside the checkout, with nothing of the
    checkout in the environment: PATH leads to the venv, and no entry of PATH lies in it."""

    venv: Path
    folder: Path
    env: dict[str, str]

    def __call__(
        self, *args: str | int | Path, timeout: int = HANG_S
    ) -> subprocess.CompletedProcess[str]:
        command = [str(self.venv / "bin" / str(args[0])), *map(str, args[1:])]
        return subprocess.run(
            command, capture_output=True, text=True, cwd=self.folder, env=self.env, timeout=timeout
        )


@pytest.fixture(scope="module")
def outside(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Outside:
    folder = tmp_path_factory.mktemp("outside")
    assert not folder.resolve().is_relative_to(REPO)
    # Bytecode written: the locked set is installed uncompiled, so without it every command
    # would compile what it imports again (a `--help` took 1.6 s of CPU instead of 0.8 s).
    env = {k: v for k, v in os.environ.items() if k not in (*UNSET, "PYTHONDONTWRITEBYTECODE")}
    paths = [p for p in env["PATH"].split(os.pathsep) if not Path(p).resolve().is_relative_to(REPO)]
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *paths])
    return Outside(venv, folder, env)


def _tracked_room_files() -> set[str]:
    listed = _run("git", "ls-files", "-z", "--", *ROOMS, cwd=REPO).stdout.split("\0")
    return {f"flopledger/{name}" for name in listed if name}


def test_the_wheel_adds_one_top_level_name_holding_every_file_of_every_room(wheel: Path) -> None:
    names = [n for n in zipfile.ZipFile(wheel).namelist() if not n.endswith("/")]
    [metadata] = {n.split("/")[0] for n in names} - {"flopledger"}  # one other: its dist-info
    assert re.fullmatch(r"flopledger-[^-]+\.dist-info", metadata), metadata
    packaged = {n for n in names if n.startswith("flopledger/")}
    # The rooms' tracked files, the SQL, CSV and YAML the code reads among them; nothing else.
    assert packaged == _tracked_room_files() | {"flopledger/__init__.py"}
    shipped = {Path(n).suffix for n in packaged}
    assert {".sql", ".csv", ".yaml"} <= shipped
    for read_at_run_time in (
        "flopledger/pipelines/dagster.yaml",  # the instance template (pipelines/instance.py)
        "flopledger/accelerators/prices.csv",  # the price book (accelerators/prices.py)
        "flopledger/collectors/sku_rules.csv",  # the SKU rules (collectors/skus.py)
        "flopledger/models/checks/books_close.sql",  # a declared check's SQL
        "flopledger/models/marts/books.sql",
        "flopledger/dashboards/app.py",  # `flopledger dashboard` runs it as a file
        "flopledger/dashboards/sql/spend_trend.sql",
    ):
        assert read_at_run_time in packaged


def test_the_installed_package_is_the_venvs_and_adds_no_generic_names(
    outside: Outside, venv: Path
) -> None:
    found = outside("python", "-c", "import flopledger; print(flopledger.__file__)")
    assert found.returncode == 0, found.stderr
    assert Path(found.stdout.strip()).is_relative_to(venv)
    # No room is importable by its own name (models, settings, cli, clients, warehouse, ...).
    found_rooms = outside(
        "python", "-c", f"import importlib.util as u; print([r for r in {ROOMS!r} if u.find_spec(r)])"
    )  # fmt: skip
    assert found_rooms.stdout.strip() == "[]", found_rooms.stdout + found_rooms.stderr


def _listed(help_text: str) -> list[str]:
    """The sub-commands a help page lists under its positional arguments (4-space indented)."""
    if "positional arguments:" not in help_text:
        return []
    section = help_text.split("positional arguments:", 1)[1].split("options:", 1)[0]
    return re.findall(r"^ {4}(\S+)", section, flags=re.M)


def _helps(outside: Outside, commands: list[tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    """Each command's `--help` page, four at a time (each start imports every command module)."""
    with ThreadPoolExecutor(4) as pool:
        pages = list(pool.map(lambda c: outside("flopledger", *c, "--help"), commands))
    for command, page in zip(commands, pages, strict=True):
        assert page.returncode == 0, f"{command}: {page.stderr}"
        assert f"usage: flopledger {' '.join(command)}" in page.stdout
    return {command: page.stdout for command, page in zip(commands, pages, strict=True)}


def test_every_command_and_sub_command_answers_help(outside: Outside) -> None:
    top = outside("flopledger", "--help")
    assert top.returncode == 0, top.stderr
    commands = _listed(top.stdout)
    assert commands == [name.replace("_", "-") for name in COMMANDS]  # kube_watch: kube-watch
    pages = _helps(outside, [(command,) for command in commands])
    subs = [(*command, sub) for command, page in pages.items() for sub in _listed(page)]
    assert {("plan", "commitments"), ("report", "month")} <= set(subs)  # the issue: report month
    _helps(outside, subs)


def test_simulate_then_run_closes_the_books(outside: Outside) -> None:
    fleet = outside.folder / "fleet"
    # The smallest fleet that bills anything: one 8-GPU VM, one day, no telemetry or TPUs.
    made = outside(
        "flopledger", "simulate", "--out", fleet, "--gpus", 8, "--tpu-chips", 0,
        "--days", 1, "--no-telemetry",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert f"config: {fleet / 'flopledger.yaml'}" in made.stdout
    ran = outside("flopledger", "run", "--config", fleet / "flopledger.yaml")
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert (fleet / "warehouse.duckdb").is_file()
    assert (fleet / "warehouse.snapshot.duckdb").is_file()
    [books] = [line for line in ran.stdout.splitlines() if "books close" in line]
    assert books.endswith(": yes"), books
