"""The house: which room may import which, one door per outside library, no module-level
mutable state, and a workspace that loads without touching the warehouse.

ruff's banned-api rules (pyproject.toml and each room's ruff.toml) say the same about
outside libraries as the editor sees it; this test also pins the arrows between our own
rooms (docs/architecture.md draws them) and names the single files that are doors.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import HANG_S, REPO

ARCHITECTURE = REPO / "docs" / "architecture.md"
_ROW = re.compile(r"^\| `(\w+)/` \| .* \| ([^|]+) \|$", re.M)


def _rooms_table() -> dict[str, set[str]]:
    """docs/architecture.md's room table: room -> the rooms it may import (its last column:
    `nothing`, a list, or `every room but x and y`)."""
    rows = {room: cell.strip() for room, cell in _ROW.findall(ARCHITECTURE.read_text())}
    allowed: dict[str, set[str]] = {}
    for room, cell in rows.items():
        if cell == "nothing":
            allowed[room] = set()
        elif cell.startswith("every room but "):
            but = set(re.findall(r"\w+", cell.removeprefix("every room but "))) - {"and"}
            allowed[room] = set(rows) - but - {room}
        else:
            allowed[room] = {name.strip() for name in cell.split(",")}
    return allowed


# room -> the other rooms it may import: read from docs/architecture.md, the one place it is said.
MAY_IMPORT = _rooms_table()
ROOMS = tuple(MAY_IMPORT)


# outside library -> where it may be imported (a folder/ or one file).
DOORS = {
    "duckdb": ("warehouse/",),
    "dagster": ("pipelines/",),
    "dagster_webserver": ("pipelines/",),
    "streamlit": ("dashboards/",),
    "jax": ("probes/",),
    "pynvml": ("collectors/nvml/nvml.py",),
    "requests": ("budgets/notify.py", "collectors/nvml/labels.py"),
    "httpx": (),
    "urllib.request": (),
    "google.cloud": (
        "collectors/gcs.py",
        "collectors/cloud_monitoring/client.py",
        "clients/bigquery.py",
    ),
    "prometheus_client": ("collectors/nvml/health.py",),
    "kubernetes": ("collectors/kubernetes/client.py",),
    "urllib3": ("collectors/kubernetes/client.py",),
}


def _modules() -> list[Path]:
    return sorted(p for room in ROOMS for p in (REPO / room).rglob("*.py"))


def _tracked(*patterns: str) -> list[str]:
    """The files git tracks that match `patterns` and are in the working tree."""
    listed = subprocess.run(
        ["git", "ls-files", *patterns], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [path for path in listed if (REPO / path).is_file()]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
    return names


def _within(name: str, library: str) -> bool:
    return name == library or name.startswith(library + ".")


def _room_of(name: str) -> str | None:
    """The room an import names (`flopledger.collectors.gcs` -> collectors), else None."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "flopledger" else None


def test_rooms_import_only_what_the_architecture_allows():
    wrong = []
    for path in _modules():
        room = path.relative_to(REPO).parts[0]
        for name in _imports(path):
            top = _room_of(name)
            if top in ROOMS and top != room and top not in MAY_IMPORT[room]:
                wrong.append(f"{path.relative_to(REPO)} imports {name}")
    assert wrong == []


def test_every_room_is_imported_through_the_one_package_name():
    """`import flopledger.models`, never `import models`: in a checkout both would load (the
    root is on the path), as two copies of one module; an installed wheel has only the first."""
    bare = [
        f"{path} imports {name}"
        for path in _tracked("*.py")
        for name in _imports(REPO / path)
        if name.split(".")[0] in ROOMS
    ]
    assert bare == []
    links = {
        p.name: p.readlink().as_posix() for p in (REPO / "flopledger").iterdir() if p.is_symlink()
    }
    assert links == {room: f"../{room}" for room in ROOMS}


def test_code_in_text_imports_rooms_through_the_package_name_too():
    """Code the AST does not see (docs' examples, scripts' heredocs, `python -c` strings, `-m`
    module names) writes `from flopledger.collectors... import` too: `from collectors...`
    loads a second copy of the room from a checkout and fails outside one."""
    rooms = "|".join(ROOMS)
    bare = re.compile(rf"(?<![\w./])(?:from ({rooms})(?:\.\w+)* import|-m ({rooms})\.\w)")
    found = [
        f"{path}:{n}: {line.strip()}"
        for path in _tracked("*.py", "*.md", "*.sh", "Makefile", "*.yaml", "*.toml")
        for n, line in enumerate((REPO / path).read_text(errors="replace").splitlines(), 1)
        if bare.search(line)
    ]
    assert found == []


def test_each_outside_library_has_its_doors_only():
    wrong = []
    for path in _modules():
        where = path.relative_to(REPO).as_posix()
        for name in _imports(path):
            for library, doors in DOORS.items():
                if _within(name, library) and not any(where.startswith(d) for d in doors):
                    wrong.append(f"{where} imports {name}")
    assert sorted(set(wrong)) == []


def test_every_pipelines_module_imports_dagster():
    """pipelines/ holds Dagster only: a module there without Dagster belongs in a plain room
    (ingest/, models/, budgets/ ...), where it is tested without it."""
    plain = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "pipelines").rglob("*.py"))
        if path.read_text().strip() and not any(_within(name, "dagster") for name in _imports(path))
    ]
    assert plain == []


# The warehouse implementations: only warehouse/ names them (its factory picks one).
IMPLEMENTATIONS = ("BigQueryWarehouse", "DuckDBWarehouse")


def _asks_which_warehouse(code: str) -> list[str]:
    """Where code names a warehouse implementation or asks whether a warehouse is one
    (`isinstance(w, ...Warehouse)`), by line."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            kinds = " ".join(ast.unparse(arg) for arg in node.args[1:])
            if "Warehouse" in kinds:
                found.append(f"{node.lineno}: isinstance(..., {kinds})")
        elif isinstance(node, ast.Name) and node.id in IMPLEMENTATIONS:
            found.append(f"{node.lineno}: {node.id}")
        elif isinstance(node, ast.alias) and node.name.split(".")[-1] in IMPLEMENTATIONS:
            found.append(f"{node.lineno}: imports {node.name}")
    return found


def test_no_code_outside_the_warehouse_asks_which_warehouse_it_has():
    """What only one warehouse can do is a capability the interface declares (warehouse/base.py:
    `in_place`), never a class test elsewhere (tests and benchmarks may name them)."""
    assert _asks_which_warehouse("if isinstance(w, (BigQueryWarehouse, Reader)): pass") != []
    wrong = [
        f"{path.relative_to(REPO)}:{hit}"
        for path in _modules()
        if path.relative_to(REPO).parts[0] != "warehouse"
        for hit in _asks_which_warehouse(path.read_text())
    ]
    assert wrong == []


def _mutable_module_state(path: Path) -> list[str]:
    found = []
    tree = ast.parse(path.read_text(), str(path))
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        empty_literal = isinstance(value, ast.Dict | ast.List | ast.Set) and not (
            getattr(value, "keys", None) or getattr(value, "elts", None)
        )
        empty_call = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in {"set", "dict", "list", "defaultdict"}
            and not value.args
        )
        if empty_literal or empty_call:
            found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    found += [
        f"{path.relative_to(REPO)}:{n.lineno} global"
        for n in ast.walk(tree)
        if isinstance(n, ast.Global)
    ]
    return found


def test_no_module_level_mutable_state():
    # An empty dict, list or set at module level exists to be filled at run time: state.
    assert [hit for path in _modules() for hit in _mutable_module_state(path)] == []


def test_the_workspace_loads_without_touching_the_warehouse(tmp_path):
    config = tmp_path / "flopledger.yaml"
    config.write_text("history_start: 2026-01-01\nwarehouse: {path: w.duckdb}\n")
    code = "import flopledger.pipelines.definitions as d\ndefs = d.defs()\nprint(len(list(defs.assets)))\n"
    env = {**os.environ, "FLOPLEDGER_CONFIG": str(config)}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) > 20
    assert list(tmp_path.iterdir()) == [config]  # no warehouse file, no lock, nothing written


def test_the_dead_code_check_reads_every_room():
    """vulture (make test's lint) is given the rooms by name: it does not follow flopledger/'s
    links, so a room missing from its list would go unchecked."""
    import tomllib

    paths = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["vulture"]["paths"]
    assert sorted(p for p in paths if not p.startswith("tests/")) == sorted(ROOMS)


def test_every_place_the_architecture_names_for_a_new_thing_is_there():
    """docs/architecture.md's "Where a new thing goes": each file it names exists, and each
    folder a placeholder (`collectors/<source>/`) goes into."""
    section = ARCHITECTURE.read_text().split("## Where a new thing goes", 1)[1]
    named = {
        token
        for token in re.findall(r"`([^`\s]+)`", section)
        if "/" in token and not token.startswith(("-", "{"))
    }
    assert len(named) > 20  # the section was read
    missing = []
    for token in sorted(named):
        fixed = token.split("<", 1)[0]  # up to a placeholder: a folder that must be there
        if "{" in fixed:  # models/{intermediate,marts}/...
            continue
        if not (REPO / fixed).exists():
            missing.append(token)
    assert missing == []


def test_the_readme_layout_names_every_room():
    """README's Layout block has a line for each room (a new room gets one)."""
    layout = (REPO / "README.md").read_text().split("## Layout", 1)[1].split("```")[1]
    listed = set(re.findall(r"^(\w+)/ ", layout, flags=re.M))
    assert set(ROOMS) - listed == set()
