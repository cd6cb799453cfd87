"""Config and arguments are checked before anything runs (issue 36): every bad value is one
line naming its key and what is wrong, all of them at once, exit 2, never a traceback."""

from __future__ import annotations

import itertools

import pytest
from dagster._utils.schedules import is_valid_cron_string

from flopledger.cli.main import main
from flopledger.settings import ConfigError, load_config
from flopledger.settings.cron import cron_problem
from tests.conftest import write_config

CRON_HINT = (
    "not a cron schedule: five fields, e.g. '0 5 * * *' (minute hour day month weekday, UTC), "
    "or @daily, @hourly, ...; numbers, jan..dec, sun..sat, *, ranges, /steps and lists "
    "(not L, #, ?)"
)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What a refused command says, line by line, having checked it exits 2 and writes no
    traceback."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    return err.splitlines()


# (what the file says, the one line `flopledger run` answers, after "flopledger: "; {tmp} is
# the config's folder, {config} the file)
BAD_VALUES = [
    (
        "a cron string that is no cron",
        'schedules: {billing: "every full moon"}\n',
        f"{{config}}: schedules.billing: {CRON_HINT} (got 'every full moon')",
    ),
    (
        "a cron string Dagster refuses (30 February): its rule, not a plain one",
        "schedules: {month_report: '0 7 30 2 *'}\n",
        f"{{config}}: schedules.month_report: {CRON_HINT} (got '0 7 30 2 *')",
    ),
    (
        "a warehouse that is a device",
        "warehouse: {path: /dev/null}\n",
        "warehouse.path: /dev/null is not a regular file (a DuckDB file, or a path not there yet)",
    ),
    (
        "a warehouse in a folder that is a file",
        "warehouse: {path: notes.txt/w.duckdb}\n",
        "warehouse.path: {tmp}/notes.txt is not a folder",
    ),
    (
        "a budgets file that is a folder",
        "budgets: a_folder\n",
        "budgets: {tmp}/a_folder is a folder, not a file",
    ),
    (
        "a dagster_home that is a file",
        "dagster_home: notes.txt\n",
        "dagster_home: {tmp}/notes.txt is not a folder",
    ),
    (
        "a weight past what team_chargeback's HUGEINT arithmetic holds",
        "allocation: {shared_cost_policy: fixed, shared_cost_key: {llm: 1" + "0" * 40 + "}}\n",
        "{config}: allocation.shared_cost_key.llm: Input should be less than or equal to "
        f"1000000000000 (got 1{'0' * 40})",
    ),
    (
        "weights each in range whose sum is not: 10^12 + 1",
        "allocation: {shared_cost_key: {llm: 1000000000000, vision: 1}}\n",
        "{config}: allocation.shared_cost_key: the weights must sum to at most "
        "1,000,000,000,000 (got 1,000,000,000,001)",
    ),
    (
        "a date with a month 13 (YAML's own date reader would raise)",
        "history_start: 2026-13-01\n",
        "{config}: history_start: Input should be a valid date or datetime, month value is "
        "outside expected range of 1-12 (got '2026-13-01')",
    ),
]


@pytest.mark.parametrize("name,text,line", BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_a_bad_value_is_one_line_naming_its_key_and_exit_2(tmp_path, capsys, name, text, line):
    (tmp_path / "notes.txt").write_text("not a folder\n")
    (tmp_path / "a_folder").mkdir()
    config = write_config(tmp_path, text)
    lines = _refused(["run", "--config", str(config)], capsys)
    assert lines == ["flopledger: " + line.format(tmp=tmp_path, config=config)]


def test_a_dagster_home_that_cannot_be_made_is_one_line(tmp_path, capsys):
    # /proc takes no new folder whatever the permissions say (root's included): the probe
    # folder's mkdir fails, and its reason (ENOENT as root, EACCES otherwise) ends the line.
    config = write_config(tmp_path, "dagster_home: /proc/flopledger_home\n")
    (line,) = _refused(["run", "--config", str(config)], capsys)
    assert line.startswith(
        "flopledger: dagster_home: /proc/flopledger_home cannot be made in /proc ("
    )


def test_a_binary_config_file_is_one_line(tmp_path, capsys):
    config = tmp_path / "flopledger.yaml"
    config.write_bytes(b"warehouse: {path: w.duckdb}\n\x7fELF\x02\x01\x01\x00\xd0\xff")
    # b"warehouse: {path: w.duckdb}\n" is 28 bytes; then 7f E L F 02 01 01 00 are ASCII (byte
    # 28 to 35), and 0xd0 (byte 36) starts a two-byte sequence that 0xff cannot continue.
    lines = _refused(["run", "--config", str(config)], capsys)
    assert lines == [f"flopledger: {config}: not UTF-8 YAML text (byte 36 is not UTF-8)"]


def test_every_bad_key_is_said_at_once_one_line_each(tmp_path, capsys):
    (tmp_path / "a_folder").mkdir()
    config = write_config(
        tmp_path,
        "warehouse: {path: /dev/null}\n"
        "schedules: {billing: 'every full moon', telemetry: '61 * * * *'}\n"
        "budgets: a_folder\n"
        "dagster_home: /dev/null/home\n"
        "allocation: {shared_cost_key: {llm: 0}}\n"
        "limits: {max_money: -1}\n",
    )
    lines = _refused(["run", "--config", str(config)], capsys)
    # pydantic's lines in the model's field order, then the paths' in the order they are
    # checked (files, the warehouse, dagster_home)
    assert lines == [
        f"flopledger: {config}: allocation.shared_cost_key: every weight must be a positive "
        "integer",
        f"flopledger: {config}: schedules.billing: {CRON_HINT} (got 'every full moon')",
        f"flopledger: {config}: schedules.telemetry: {CRON_HINT} (got '61 * * * *')",
        f"flopledger: {config}: limits.max_money: Input should be greater than 0 (got -1)",
        f"flopledger: budgets: {tmp_path}/a_folder is a folder, not a file",
        "flopledger: warehouse.path: /dev/null is not a regular file (a DuckDB file, or a path "
        "not there yet)",
        "flopledger: dagster_home: /dev/null/home cannot be made: /dev/null is not a folder",
    ]


def test_the_paths_of_a_block_already_refused_are_not_looked_at(tmp_path):
    # The warehouse block is refused for its unknown key: its path (a device) is not checked
    # as well, nor the default that would stand in for it.
    config = write_config(tmp_path, "warehouse: {path: /dev/null, colour: blue}\n")
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    assert str(refused.value) == f"{config}: warehouse.colour: unknown key"


def test_what_a_run_creates_need_not_exist_and_loading_creates_nothing(tmp_path):
    config = write_config(
        tmp_path,
        "warehouse: {path: data/deep/w.duckdb}\ndagster_home: state/dagster\n"
        "allocation: {shared_cost_policy: fixed, shared_cost_key: {llm: 999999999999, vision: 1}}\n"
        "schedules: {billing: '@daily', month_report: '0 7 1 * mon-fri'}\n",
    )
    loaded = load_config(config)
    assert loaded.warehouse.path == str(tmp_path / "data" / "deep" / "w.duckdb")
    assert loaded.dagster_home == str(tmp_path / "state" / "dagster")
    # 999,999,999,999 + 1 = 10^12: the bound itself is allowed
    assert sum(loaded.allocation.shared_cost_key.values()) == 10**12
    # names are standard cron: taken without Dagster
    assert loaded.schedules.month_report == "0 7 1 * mon-fri"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flopledger.yaml"]  # no probe left


BAD_ARGUMENTS = [
    (["run", "--from", "2026-13-01"], "flopledger run: error: argument --from: day must be "
     "YYYY-MM-DD, e.g. 2026-10-01 (got '2026-13-01': month must be in 1..12)"),
    (["run", "--to", "0000-01-01"], "flopledger run: error: argument --to: day must be "
     "YYYY-MM-DD, e.g. 2026-10-01 (got '0000-01-01': year 0 is out of range)"),
    (["restate", "--from", "2026-02-30"], "flopledger restate: error: argument --from: day must "
     "be YYYY-MM-DD, e.g. 2026-10-01 (got '2026-02-30': day is out of range for month)"),
    (["report", "month", "--month", "0000-01"], "flopledger report month: error: argument "
     "--month: month must be YYYY-MM, e.g. 2026-10 (got '0000-01')"),
    (["report", "month", "--month", "2026-13"], "flopledger report month: error: argument "
     "--month: month must be YYYY-MM, e.g. 2026-10 (got '2026-13')"),
    (["simulate", "--out", "unused", "--start", "soon"], "flopledger simulate: error: argument "
     "--start: day must be YYYY-MM-DD, e.g. 2026-10-01 (got 'soon')"),
]  # fmt: skip


@pytest.mark.parametrize("argv,line", BAD_ARGUMENTS, ids=[" ".join(a[0]) for a in BAD_ARGUMENTS])
def test_a_bad_day_or_month_argument_is_one_line_and_exit_2(tmp_path, capsys, argv, line):
    config = write_config(tmp_path, "")
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--config", str(config)] if argv[0] != "simulate" else argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines() == [line]  # no usage block before it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["flopledger.yaml"]  # nothing ran


def test_a_config_error_in_report_plan_and_export_is_exit_2_one_line_each(tmp_path, capsys):
    config = write_config(tmp_path, "warehouse: {path: /dev/null}\nlimits: {future_days: -1}\n")
    for argv, prefix in [
        (["report", "month", "--month", "2026-10"], "flopledger report"),
        (["plan", "commitments"], "flopledger plan"),
        (["export", "focus", "--out", str(tmp_path / "x.csv")], "flopledger export"),
    ]:
        assert _refused([*argv, "--config", str(config)], capsys) == [
            f"{prefix}: {config}: limits.future_days: Input should be greater than or equal to "
            "0 (got -1)",
            f"{prefix}: warehouse.path: /dev/null is not a regular file (a DuckDB file, or a "
            "path not there yet)",
        ]


CRONS = [
    "0 5 * * *", "15 * * * *", "@daily", "@hourly", "@reboot", "*/15 * * * *", "5/10 * * * *",
    "1-5,10-20/2 * * * *", "0 0 * * 7", "0 0 * * 8", "60 * * * *", "0 24 * * *", "0 0 0 * *",
    "0 0 * 13 *", "0 0 29 2 *", "0 0 30 2 *", "0 0 31 2 *", "0 0 30 1,2 *", "0 0 31 2/12 *",
    "0 0 * jan mon", "0 0 * JAN-MAR MON-FRI", "0 0 * * sun,sat", "0 0 * feb/3 mon/2",
    "0 0 * * 0-7", "0 0 * * 5L", "0 5 * * * *", "0 5 * *", "", "every full moon",
    "  0 5 * * *  ", "0\t5 * * * *", "0 5 * * *\n", "*/0 * * * *", "0 0 * janu *",
]  # fmt: skip
# Forms Dagster's croniter reads that are not standard cron: refused here with the hint.
NOT_PORTABLE = ["0 7 L * *", "0 7 * * 1#2", "0 7 ? * *", "5-1 * * * *", "*/99 * * * *"]


@pytest.mark.parametrize("cron", CRONS)
def test_a_standard_cron_string_is_taken_exactly_when_dagster_takes_it(cron):
    assert (cron_problem(cron) is None) == is_valid_cron_string(cron)


@pytest.mark.parametrize("cron", NOT_PORTABLE)
def test_a_form_only_croniter_reads_is_refused_with_the_hint(cron):
    assert is_valid_cron_string(cron)
    assert cron_problem(cron) == CRON_HINT


def test_nothing_taken_here_is_refused_by_dagster():
    # Every combination of a few items per field, valid and not (a range backwards, a step of
    # 0, out of range, names, a 30th and 31st with months that may or must be February).
    fields = [
        ["*", "0", "59", "60", "*/15", "5-1", "0-59/0", "1,2"],
        ["*", "0", "23", "24", "*/2"],
        ["*", "1", "29", "30", "31", "0", "1-31/7", "30,31", "1,30"],
        ["*", "2", "12", "13", "1-2", "*/2", "feb", "2/12", "FEB-mar", "sep"],
        ["*", "0", "7", "8", "1-5", "sat", "mon-fri", "sun/2"],
    ]
    combos = [" ".join(c) for c in itertools.product(*fields)]
    taken = [c for c in combos if cron_problem(c) is None]
    assert 1000 < len(taken) < len(combos)  # both verdicts are exercised
    assert [c for c in taken if not is_valid_cron_string(c)] == []
