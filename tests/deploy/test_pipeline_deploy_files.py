"""The pipeline's systemd units and Containerfile run a checkout at /opt/flopledger (the
Containerfile's WORKDIR): every file of it they name must exist, and the instance template
they copy into DAGSTER_HOME must be the one `flopledger run` and `flopledger ui` copy."""

from __future__ import annotations

import re
import shlex

from flopledger.cli.main import build_parser
from flopledger.pipelines.instance import INSTANCE_TEMPLATE
from tests.conftest import REPO

DEPLOY = REPO / "deploy"
UNITS = ("flopledger-daemon.service", "flopledger-webserver.service", "flopledger-health.service")
CONTAINERFILE = DEPLOY / "pipeline.Containerfile"
_CHECKOUT_PATH = re.compile(r"/opt/flopledger/([\w./-]+)")
_ENTRYPOINT_FILE = re.compile(r"(?:cp|-w) ([\w./-]+\.yaml)")


def _named_in_units() -> set[str]:
    named = set()
    for unit in UNITS:
        named |= set(_CHECKOUT_PATH.findall((DEPLOY / unit).read_text()))
    return {path for path in named if not path.startswith(".venv/")}  # made by `make setup`


def _named_in_the_entrypoint() -> set[str]:
    [entrypoint] = [
        line for line in CONTAINERFILE.read_text().splitlines() if line.startswith("ENTRYPOINT")
    ]
    return set(_ENTRYPOINT_FILE.findall(entrypoint))


def test_the_units_and_the_image_name_files_the_checkout_has() -> None:
    units, image = _named_in_units(), _named_in_the_entrypoint()
    assert units == {"pipelines/dagster.yaml", "workspace.yaml"}
    assert image == {"pipelines/dagster.yaml", "workspace.yaml"}
    assert [path for path in units | image if not (REPO / path).is_file()] == []


def test_they_copy_the_instance_template_the_cli_copies() -> None:
    assert INSTANCE_TEMPLATE.resolve() == (REPO / "pipelines" / "dagster.yaml").resolve()


def test_the_health_unit_serves_doctor_on_loopback() -> None:
    """Its command is one the CLI takes: `flopledger doctor --serve` on 127.0.0.1 only."""
    [exec_start] = [
        line.split("=", 1)[1]
        for line in (DEPLOY / "flopledger-health.service").read_text().splitlines()
        if line.startswith("ExecStart=")
    ]
    program, *argv = shlex.split(exec_start)
    assert program == "/opt/flopledger/.venv/bin/flopledger"
    args = build_parser(argv).parse_args(argv)
    assert args.func.__name__ == "doctor"
    assert args.serve == ("127.0.0.1", 8790)
