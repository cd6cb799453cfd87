"""`flopledger`: one console script, one module per sub-command under `cli/commands/`.

Each command module has `register(subparsers)`, which adds its parser and sets
`func(args) -> int` (the exit code). Modules are imported lazily by name so that a quick
command (`flopledger sql`) does not pay for Dagster or JAX.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import logging
import os
import sys
import warnings
from typing import NoReturn

from flopledger.settings import ConfigError
from flopledger.settings.log_format import FORMATS, LOG_FORMAT_ENV, JsonLines, json_line, log_format

COMMANDS = (
    "run",
    "restate",
    "sql",
    "simulate",
    "demo",
    "agent",
    "kube_watch",
    "probe",
    "alerts",
    "plan",
    "report",
    "export",
    "dashboard",
    "ui",
    "doctor",
    "upgrade",
)


def _chosen(argv: list[str]) -> tuple[str, ...]:
    """The command modules to import: the one `argv` names (its first word: the top-level
    options take no value), else all (for `--help`, or an unknown command's list of choices).
    So a run does not import the simulator's modules, nor the probes'."""
    words = [w for w in argv if not w.startswith("-")]
    if not words and "--version" in argv:
        return ()  # the version alone needs no command
    return (words[0],) if words and words[0] in COMMANDS else COMMANDS


class OneLineParser(argparse.ArgumentParser):
    """A bad argument is one line and exit 2, like a bad config: no usage block before it
    (`--help` gives that). Every command's parser is one, as argparse makes sub-parsers of the
    parent's class."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


# The distributions that install this command: the project, or the agent's slim package.
DISTRIBUTIONS = ("flopledger", "flopledger-agent")


def version() -> str:
    """The installed version (`flopledger --version`), or `unknown` when run from a tree no
    installer recorded."""
    for name in DISTRIBUTIONS:
        try:
            return f"{name} {importlib.metadata.version(name)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return "flopledger (version unknown: not installed)"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv`'s command (every command's without `argv`, or when it names none)."""
    parser = OneLineParser(
        prog="flopledger",
        description="What your accelerators cost, what sat idle, and what they deliver.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    parser.add_argument("--version", action="version", version=version())
    parser.add_argument(
        "--log-format",
        choices=FORMATS,
        help=f"text (default) or json: one object per line (also ${LOG_FORMAT_ENV})",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in _chosen(argv) if argv is not None else COMMANDS:
        try:
            module = importlib.import_module(f"flopledger.cli.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"flopledger.cli.commands.{name}":
                continue  # not installed: the agent's slim package ships `agent` alone
            raise
        module.register(sub)
    return parser


def _one_line_errors() -> tuple[type[Exception], ...]:
    """Errors printed as one line. The agent's slim install has no warehouse (nor DuckDB)."""
    from flopledger.collectors.gcs import StorageError  # a bucket missing, no permission: one line

    try:
        from flopledger.clients.bigquery import BigQueryError  # no credentials, a refused query
        from flopledger.warehouse import WarehouseLocked
    except ModuleNotFoundError:
        return (ConfigError, StorageError)
    return (ConfigError, StorageError, WarehouseLocked, BigQueryError)


def _configure_logging(level: int) -> None:
    """The root logger's handler on stderr, text or JSON lines (settings/log_format.py)."""
    if log_format() == "json":
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonLines())
        logging.basicConfig(level=level, handlers=[handler], force=True)
    else:
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def main(argv: list[str] | None = None) -> int:
    warnings.filterwarnings("ignore", message=".*is currently in beta.*")
    warnings.filterwarnings("ignore", message=".*is currently in preview.*")
    args = build_parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    if args.log_format:  # before anything logs: runs, the agent and child processes follow it
        os.environ[LOG_FORMAT_ENV] = args.log_format
    _configure_logging(logging.INFO if args.verbose else logging.WARNING)
    try:
        return int(args.func(args))
    except _one_line_errors() as exc:
        for line in str(exc).splitlines() or [""]:  # a config's problems: one line each
            if log_format() == "json":
                print(json_line(line, "ERROR", "flopledger.cli"), file=sys.stderr)
            else:
                print(f"flopledger: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `flopledger sql ... | head`: the reader has what it wanted
        # Python would print the error again flushing stdout at exit: point it at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a process ended by SIGPIPE (128 + 13)


if __name__ == "__main__":
    sys.exit(main())
