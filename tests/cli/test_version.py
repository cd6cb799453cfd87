"""`flopledger --version` says the installed version (issue 39: what an on-call SRE asks first),
exit 0, without importing any command."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from flopledger.cli.main import main

REPO = Path(__file__).resolve().parents[2]


def test_the_version_is_the_projects(capsys: pytest.CaptureFixture[str]) -> None:
    expected = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"flopledger {expected}\n"


def test_the_version_imports_no_command() -> None:
    script = (
        "import sys\nfrom flopledger.cli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('flopledger.cli.commands.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"
