"""The agent's slim install (deploy/agent/): what the image installs, installed for real in
a clean virtual environment, runs `flopledger agent` without JAX, Dagster or Streamlit."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import HANG_S

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "deploy" / "agent"
DOCKERFILE = REPO / "deploy" / "agent.Dockerfile"
HEAVY = ("jax", "dagster", "dagster-webserver", "streamlit", "duckdb", "polars")
_PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s\\;]+)", re.M)


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    return {_norm(n): v for n, v in _PIN.findall((AGENT / "requirements.txt").read_text())}


def test_agent_requirements_are_the_lock_files_versions() -> None:
    lock = tomllib.loads((REPO / "uv.lock").read_text())
    locked = {_norm(p["name"]): p["version"] for p in lock["package"] if "version" in p}
    pinned = pins()
    assert pinned, "no pins read"
    assert {n: v for n, v in pinned.items() if locked.get(n) != v} == {}
    assert not set(pinned) & set(HEAVY)
    declared = tomllib.loads((AGENT / "pyproject.toml").read_text())["project"]["dependencies"]
    for requirement in declared:
        assert _norm(re.split(r"[<>=!~ ]", requirement)[0]) in pinned, requirement
    assert all("--hash=sha256:" in block for block in re.split(r"\n(?=\S)", _body()))


def _body() -> str:
    return "\n".join(
        line for line in (AGENT / "requirements.txt").read_text().splitlines() if line[:1] != "#"
    ).strip()


def dockerfile() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip()[:1] not in ("", "#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def test_agent_dockerfile_pins_bases_runs_non_root_and_copies_what_the_wheel_packs() -> None:
    steps = dockerfile()
    bases = [arg.split()[0] for op, arg in steps if op == "FROM"]
    assert bases and all(re.search(r":\d+\.\d+\.\d+", b) or "@sha256:" in b for b in bases)
    users = [arg for op, arg in steps if op == "USER"]
    assert users and not users[-1].startswith(("0", "root"))
    runs = " ".join(arg for op, arg in steps if op == "RUN")
    assert "deploy/agent/install.sh" in runs
    copied = [
        Path(src.rstrip("/"))
        for op, arg in steps
        if op == "COPY" and not arg.startswith("--from")
        for src in arg.split()[:-1]
    ]
    wheel = tomllib.loads((AGENT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    sources = [Path(s).relative_to("../..") for s in wheel["targets"]["wheel"]["force-include"]]
    missing = [s for s in sources if not any(s == c or c in s.parents for c in copied)]
    assert missing == []
    for source in sources:
        assert (REPO / source).exists(), source


def entry_point() -> list[str]:
    steps = dict(dockerfile())
    return json.loads(steps["ENTRYPOINT"]) + json.loads(steps["CMD"])


def uv() -> str:
    found = REPO / ".tools" / "bin" / "uv"
    path = str(found) if found.exists() else shutil.which("uv")
    assert path, "uv not found: run `make setup` (it installs .tools/bin/uv)"
    return path


@pytest.mark.slow
def test_agent_slim_install_runs_without_jax_or_dagster(tmp_path: Path) -> None:
    """The image's install step in a fresh venv; then the image's entry point, simulated."""
    venv = tmp_path / "venv"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_LINK_MODE": "copy"}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{Path(uv()).parent}{os.pathsep}{env['PATH']}"
    subprocess.run([uv(), "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=env)
    python = venv / "bin" / "python"
    install = subprocess.run(
        ["sh", str(AGENT / "install.sh"), str(python), str(REPO)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_S,
    )
    assert install.returncode == 0, install.stderr[-2000:]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        clean = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run(
            args, capture_output=True, text=True, cwd=tmp_path, env=clean, timeout=HANG_S
        )

    helped = run(str(venv / "bin" / "flopledger"), "agent", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "--pod-resources" in helped.stdout and "--health" in helped.stdout
    for module in (
        "jax",
        "dagster",
        "streamlit",
        "duckdb",
        "polars",
        "flopledger.warehouse",
        "flopledger.pipelines",
    ):
        imported = run(str(python), "-c", f"import {module}")
        assert imported.returncode == 1 and "ModuleNotFoundError" in imported.stderr, module

    # The image's ENTRYPOINT + CMD, with the spool here and a short simulated run.
    command = entry_point()
    assert command[:2] == ["flopledger", "agent"]
    command[0] = str(venv / "bin" / "flopledger")
    command[command.index("--spool") + 1] = str(tmp_path / "spool")
    command[command.index("--health") + 1] = "127.0.0.1:0"
    command += ["--simulate", "idle", "--gpus", "2", "--duration", "3s", "--minute-seconds", "1"]
    ran = run(*command)
    assert ran.returncode == 0, f"{shlex.join(command)}\n{ran.stderr}"
    spooled = list((tmp_path / "spool").glob("gpu_samples_*.parquet"))
    assert spooled, ran.stderr
    rows = run(
        str(python),
        "-c",
        "import sys, pyarrow.parquet as pq; "
        "t = pq.read_table(sys.argv[1]); print(t.num_rows, t.schema.metadata[b'flopledger.gpu_samples.schema_version'].decode())",
        str(spooled[0]),
    )
    assert rows.returncode == 0, rows.stderr
    count, version = rows.stdout.split()
    assert int(count) >= 2 and int(count) % 2 == 0 and version == "2"  # 2 GPUs per minute
