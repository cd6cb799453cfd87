"""A differential fuzzer: the columnar billing reader against the per-row reader (issue 15).

`iter_billing_batches(files, stats, engine=ArrowSQL())` must give exactly what the per-row
reader gives for any input: every column of every row in the same order, the same quarantine
rows and reasons, the same counts. Real export rows (one simulated day of a tiny fleet, every
kind of SKU the simulator bills) are mutated by a seeded generator in the ways extracts and
hostile files vary (numbers as strings and exponents, timestamps in other spellings, missing,
null and empty fields, duplicate keys, escapes, wrong types, whitespace, another currency) and
written as NDJSON and as Parquet; both readers read the same files and every difference is
reported with its line. A second generator makes only changes a plain line may carry (amounts
at the limits, USD rounding ties, rates, times at the window's edges, odd ASCII text), so the
columnar statement's own arithmetic and text meet the normaliser's line by line; hand cases
put every listed spelling in every numeric, time and label field of one GPU row.

REGRESSIONS (one line each) and the Parquet and file cases below them are what the
differences found were minimised to, each fixed in the columnar reader (the per-row reader is
the reference and did not change). The module takes about 10 s.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flopledger.collectors.gcp_billing.columnar import plain_rows
from flopledger.collectors.gcp_billing.read import BillingRead, iter_billing_batches
from flopledger.collectors.gcp_billing.schema import (
    BILLING_SCHEMA,
    EXPORT_FIELDS,
    EXPORT_PARQUET_SCHEMA,
)
from flopledger.collectors.limits import DEFAULT_LIMITS, Limits
from flopledger.simulator import DEFAULT_START
from flopledger.simulator.billing import day_rows
from flopledger.simulator.clock import DAY_US, day_start_us
from flopledger.simulator.extracts import _arrow_leaf, _value, ndjson_line
from flopledger.simulator.fleet import build_fleet
from flopledger.simulator.schedule import build_schedule
from flopledger.warehouse.arrow_sql import ArrowSQL
from tests.collectors.test_billing_columnar import _parquet, compact, full_row
from tests.fuzz_json import Raw, all_paths, dumps_with_raws, shuffled

NOW = datetime(2026, 11, 1)
SEED = 20261201
LINES_PER_CASE = 250


def regression(raw: str | None = None, **changes: Any) -> str:
    """A plain compact export line (every field), with `changes`, and `raw` (a member's text)
    written in place of its cost member: a number token or key as no dumps would write it."""
    text = compact(full_row(**changes))
    return text if raw is None else text.replace('"cost":10.0', raw, 1)


# The one-line cases the fuzzer's differences were minimised to, each with what went wrong:
# each was read differently by the two readers once (the commit that fixed it says how).
REGRESSIONS: list[tuple[str, str]] = [
    (
        "a rate of 100 or more overflowed the USD macro: the whole extract failed (JPY)",
        regression(currency="JPY", currency_conversion_rate=151.234567),
    ),
    (
        "a key twice, the later null: the per-row reader keeps the null (cost missing)",
        regression('"cost":10.0,"cost":null'),
    ),
    (
        "a nested key twice, the later null (usage.amount missing to the per-row reader)",
        regression().replace('"amount":28800,', '"amount":28800,"amount":null,'),
    ),
    (
        "an unknown field with a null value: an extra field to the per-row reader",
        regression('"cost":10.0,"new_field":null'),
    ),
    (
        "the same, every empty member written with a space before its colon",
        regression('"cost":10.0,"new_field":null')
        .replace('":null', '" :null')
        .replace('":[]', '" :[]'),
    ),
    (
        "a price of 30 significant digits: the canonical text (row_id) rounds it to 28",
        regression(price={"unit": "hour", "list_price": "123456789012345678901234567890"}),
    ),
    (
        "a price of '0.', 1,001 zeros and a 1: past collectors/money.py's exponent bound",
        regression(price={"effective_price": "0." + "0" * 1001 + "1", "unit": "hour"}),
    ),
    (
        "usage of 29 nines GPU-hours: usage times 3,600 overflowed DECIMAL(38, 9) (run failed)",
        regression(usage={"amount": "9" * 29, "unit": "hour", "pricing_unit": "hour"}),
    ),
    (
        "two credits of 29 nines: their sum overflowed DECIMAL(38, 9) (the run failed)",
        regression(credits=[{"name": "a", "amount": "9" * 29}, {"name": "b", "amount": "9" * 29}]),
    ),
    (
        "a rate of 1e10 or more: the per-row reader's rate.quantize(1e-18) fails (quarantined)",
        regression(currency="XXX", currency_conversion_rate="12345678901.5"),
    ),
]

NUMBER_TOKENS = [
    "1e-05",
    "1E3",
    "7.8372405e1",
    "78.3724050",
    "0.1234567891",
    "0.1234567890123456789",
    "0.12345678901234567890123",
    "-0",
    "-0.0",
    "0.0",
    "0",
    "1e30",
    "1e400",
    "1e-400",
    "1E+2",
    "1e2",
    "100",
    "123456789012345678901234567890",
    "99999999999999999999.5",
    "0.30000000000000004",
    "5e-324",
    "1.7976931348623157e308",
    "-78.372405",
    "1e12",
    "999999999999.999999999",
    "1000000000000.000000001",
    "0.000000001",
    "0.0000000005",
    "0.0000000015",
    "12.50",
    "-1e-9",
    "3.3",
    "28800.0",
    "28800",
    "2.88e4",
    "1e-10",
    "0.5e1",
    "12345678901.5",
]
NUMBER_STRINGS = [
    "0." + "0" * 1001 + "1",
    "0." + "0" * 999 + "1",
    "1" + "0" * 1001,
    "-0." + "0" * 40,
    "12.5",
    " 12.5",
    "12.5 ",
    "1 2.5",
    "1_000",
    "0x10",
    "",
    " ",
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "inf",
    "1e400",
    "-0",
    "-0.0",
    "007",
    "0.50",
    "5.",
    ".5",
    "+5",
    "1E3",
    "1e-05",
    "7.8372405e1",
    "0.1234567891234",
    "1e30",
    "12,5",
    "abc",
    "0.000000000",
]
NUMBER_OTHERS: list[Any] = [
    True,
    False,
    "true",
    None,
    [],
    {},
    [1],
    {"a": 1},
    12,
    0,
    -0.0,
    0.1 + 0.2,
    1e-5,
    1e30,
    7.5,
]
RAW_LITERALS = [
    "NaN",
    "Infinity",
    "-Infinity",
    "007",
    "-007.5",
    ".5",
    "5.",
    "+5",
    "1.e3",
    "0x10",
    "1e",
    "--1",
    "1.5.5",
    "-",
    "01.5",
    "1e+",
    "1E-0",
    "0e0",
    "-0e-0",
    "0.0e5",
    "1" + "0" * 40,
    "0." + "0" * 1001 + "1",
    "1e-1001",
    "1e1001",
    "0." + "0" * 30 + "1",
]
TIMES = [
    "2026-10-01T00:00:00Z",
    "2026-10-01T00:00:00+00:00",
    "2026-10-01 02:00:00+02:00",
    "2026-10-01 00:00 UTC",
    "2026-10-01 00:00:00.1234567 UTC",
    "2026-10-01",
    "2026-10-01 00:00:00.123456 UTC",
    "2026-10-01 00:00:00.000000 UTC",
    "2026-10-01 00:00:00 utc",
    " 2026-10-01 00:00:00 UTC",
    "2026-10-01 00:00:00 UTC ",
    "2026-10-01 24:00:00 UTC",
    "2026-02-30 00:00:00 UTC",
    "2026-10-01 00:00:00 GMT",
    "2026-10-01 00:00:00Z",
    "2026-10-01 00:00:60 UTC",
    "0001-01-01 00:00:00 UTC",
    "9999-12-31 23:59:59.999999 UTC",
    "2026-10-01 00:00:00.5 UTC",
    "2026-10-01T00:00:00.000001Z",
    "2026-10-01 00:30:00 UTC",
    "2026-10-01 01:00:00 UTC",
    "2026-09-30 23:00:00 UTC",
    "1999-12-31 23:59:59 UTC",
    "2100-01-01 00:00:00 UTC",
    "2100-01-01 00:00:00.000001 UTC",
    "2000-01-01 00:00:00 UTC",
    "2026-10-01 0:00:00 UTC",
    "2026-10-1 00:00:00 UTC",
    "20261001T000000Z",
    "",
    None,
    "1790000000",
    "2026-10-01 00:00:00.250000 UTC",
    "2026-10-01 00:00:00 +0000",
]
STRINGS: list[Any] = [
    "équipe",
    'a"b',
    "a\\b",
    "line\nbreak",
    "tab\there",
    "é",
    "\u2028",
    "😀",
    "",
    " ",
    "a/b",
    "x" * 300,
    "null",
    "true",
    "\x01",
    "\x7f",
    "ﬁ",
    123,
    1.5,
    True,
    None,
    [],
    {},
]
SKUS = [
    "Nvidia H100 80GB GPU running in Americas",
    "NVIDIA H100 80GB GPU RUNNING IN AMERICAS",
    "Nvidia H100 80GB GPU running in Americas ",
    "Spot Preemptible Nvidia H100 80GB GPU running in Americas",
    "Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year",
    "TpuV6e chip running in Americas",
    "Tpu v5e chip running in Americas",
    "A3 Instance Core running in Americas",
    "Tax",
    "Nvidia Tesla T4 GPU running in Americas",
    "Trillium chip running in Americas",
    "Nvidia H200 141GB GPU running in Americas (Reserved)",
    "GPU",
    "gpu slice",
    "",
    "Standard Storage US Multi-region",
    "Nvidia L4 GPU running in EMEA",
    "Nvidia A100 GPU DWS",
]
UNITS = [
    "seconds",
    "Seconds",
    "SECONDS",
    " seconds",
    "seconds ",
    "second",
    "s",
    "S",
    "hour",
    "Hours",
    "h",
    "H",
    "byte-seconds",
    "requests",
    "",
    "sec",
    "gibibyte month",
    None,
]
CURRENCIES = [
    ("EUR", 0.92),
    ("EUR", "1.08"),
    ("JPY", 151.234567),
    ("IDR", 16000.5),
    ("BHD", 0.376),
    ("XXX", 1e-9),
    ("EUR", "0.000000000000000001"),
    ("EUR", "1.0000000000000000001"),
    ("EUR", 1.000000000000000001),
    ("EUR", 0),
    ("EUR", -0.92),
    ("EUR", "1"),
    ("EUR", 1),
    ("EUR", 1e-20),
    ("KWD", 0.30700000000000005),
    ("EUR", "0.920000000000000000000001"),
    ("EUR", 1234.5678901234567891),
]
LABELS: list[Any] = [
    [],
    None,
    "missing",
    [{"key": "a", "value": "1"}, {"key": "a", "value": "2"}],
    [{"key": None, "value": "x"}],
    [{"value": "x"}],
    [{"key": "a"}],
    [{"key": "a", "value": None}],
    [None],
    {"a": "b"},
    "team=llm",
    [["a", "b"]],
    [{"key": "", "value": ""}],
    [{"key": "b", "value": "2"}, {"key": "a", "value": "1"}],
    [{"key": 5, "value": 6}],
    [{"key": "a", "value": "1", "extra": 1}],
    [{"key": "é", "value": "ü"}],
    [{"key": "a", "value": "x"}, {"key": None}, {"key": "a", "value": "y"}],
]
CREDITS: list[Any] = [
    [],
    None,
    "missing",
    [None],
    [{}],
    [{"amount": None}],
    [{"amount": "-1.5"}],
    [{"amount": -1e-10}],
    [{"amount": "abc"}],
    [{"name": "x", "amount": -2}, {"amount": 1}],
    {"amount": -1},
    "credit",
    [{"amount": -1e13}],
    [{"amount": -6e11}, {"amount": -6e11}],
    [{"amount": "1e400"}],
    [{"amount": True}],
    [{"name": 5, "amount": -1, "type": None}],
    [{"amount": -0.1}, {"amount": -0.2}],
    [{"amount": "-0"}],
    [{"amount": -0.0000000005}],
]
PATHS_NUMERIC = [
    ("cost",),
    ("cost_at_list",),
    ("currency_conversion_rate",),
    ("usage", "amount"),
    ("usage", "amount_in_pricing_units"),
    ("price", "effective_price"),
    ("price", "list_price"),
    ("price", "tier_start_amount"),
    ("cost_at_effective_price_default",),
    ("cost_at_list_consumption_model",),
    ("credits", 0, "amount"),
]
PATHS_TIME = [("usage_start_time",), ("usage_end_time",), ("export_time",)]
PATHS_TEXT = [
    ("billing_account_id",),
    ("project", "id"),
    ("project", "number"),
    ("project", "name"),
    ("service", "id"),
    ("service", "description"),
    ("sku", "id"),
    ("resource", "name"),
    ("location", "zone"),
    ("usage", "pricing_unit"),
    ("cost_type",),
    ("invoice", "month"),
    ("transaction_type",),
    ("seller_name",),
    ("labels", 0, "value"),
    ("labels", 0, "key"),
    ("system_labels", 0, "value"),
    ("credits", 0, "name"),
    ("credits", 0, "type"),
    ("tags", 0, "inherited"),
    ("adjustment_info", "type"),
    ("currency",),
    ("project", "ancestors", 0, "display_name"),
    ("consumption_model", "id"),
    ("subscription", "instance_id"),
    ("invoice", "publisher_type"),
]
MONTHS: list[Any] = ["202610", 202610, "2026-10", "202613", "202600", "20261", "", None, "  202610"]
DROP = object()  # a field left out


# -- building lines ------------------------------------------------------------------------


def _set(record: dict, path: tuple, value: Any) -> bool:
    """Set a dotted path (list indexes allowed) if its parent exists; DROP removes it."""
    node: Any = record
    for part in path[:-1]:
        inside = isinstance(node, dict) and isinstance(node.get(part), (dict, list))
        if not (inside or isinstance(node, list) and isinstance(part, int) and part < len(node)):
            return False
        node = node[part]
        if isinstance(node, list) and not node:
            return False
    last = path[-1]
    if isinstance(node, dict):
        if value is DROP:
            node.pop(last, None)
        else:
            node[last] = value
        return True
    if isinstance(node, list) and isinstance(last, int) and last < len(node):
        node[last] = None if value is DROP else value
        return True
    return False


def dumps(record: Any, rng: random.Random, compact: bool = False) -> str:
    """One record as an NDJSON line, in one of the spellings a writer may use."""
    style = 0.0 if compact else rng.random()
    ascii_only = compact or rng.random() < 0.5
    if style < 0.6:
        return dumps_with_raws(record, separators=(",", ":"), ensure_ascii=ascii_only)
    if style < 0.85:
        return dumps_with_raws(record, ensure_ascii=ascii_only)  # ", " and ": "
    if style < 0.95:
        return dumps_with_raws(record, separators=(",\t", ":\t"), ensure_ascii=ascii_only)
    return dumps_with_raws(record, separators=(" , ", " : "), ensure_ascii=ascii_only)


def _number(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.45:
        return Raw(rng.choice(NUMBER_TOKENS))
    if pick < 0.8:
        return rng.choice(NUMBER_STRINGS)
    if pick < 0.95:
        return copy.deepcopy(rng.choice(NUMBER_OTHERS))
    return Raw(rng.choice(RAW_LITERALS))


def mutate(record: dict, rng: random.Random) -> dict:
    """One to three random changes to a record (a deep copy)."""
    record = copy.deepcopy(record)
    for _ in range(rng.choice((1, 1, 2, 3))):
        kind = rng.randrange(14)
        if kind == 0:
            _set(record, rng.choice(PATHS_NUMERIC), _number(rng))
        elif kind == 1:
            _set(record, rng.choice(PATHS_TIME), rng.choice(TIMES))
        elif kind == 2:  # a field missing, null, empty
            paths = all_paths(record)
            if paths:
                _set(record, rng.choice(paths), rng.choice([DROP, None, "", [], {}]))
        elif kind == 3:
            which = rng.choice(["labels", "system_labels", ("project", "labels")])
            value = copy.deepcopy(rng.choice(LABELS))
            path = which if isinstance(which, tuple) else (which,)
            _set(record, path, DROP if value == "missing" else value)
        elif kind == 4:
            value = copy.deepcopy(rng.choice(CREDITS))
            _set(record, ("credits",), DROP if value == "missing" else value)
        elif kind == 5:
            _set(record, rng.choice(PATHS_TEXT), copy.deepcopy(rng.choice(STRINGS)))
        elif kind == 6:  # an unknown field, top level or nested
            where = rng.choice(
                [
                    (),
                    ("sku",),
                    ("usage",),
                    ("price",),
                    ("credits", 0),
                    ("labels", 0),
                    ("project",),
                    ("tags", 0),
                ]
            )
            _set(
                record,
                (*where, rng.choice(["new_field", "zz", "a", "Cost"])),
                copy.deepcopy(rng.choice([1, "x", None, [], {}, {"k": [1, 2]}, 1.5, True])),
            )
        elif kind == 7:  # wrong types
            path = rng.choice(
                [
                    ("sku",),
                    ("usage",),
                    ("project",),
                    ("price",),
                    ("labels",),
                    ("tags",),
                    ("location",),
                    ("invoice",),
                    ("service",),
                ]
            )
            _set(record, path, copy.deepcopy(rng.choice(["x", 5, True, [], [1], {}, None])))
        elif kind == 8:
            currency, rate = rng.choice(CURRENCIES)
            record["currency"] = currency
            record["currency_conversion_rate"] = rate
        elif kind == 9:
            _set(record, ("sku", "description"), rng.choice(SKUS))
        elif kind == 10:
            _set(record, ("usage", "unit"), rng.choice(UNITS))
        elif kind == 11:
            _set(record, ("invoice", "month"), rng.choice(MONTHS))
        elif kind == 12:
            record = shuffled(record, rng)
        else:  # a plausible change of amount that keeps the row plain
            _set(record, ("cost",), Raw(f"{rng.randrange(10**6)}.{rng.randrange(10**6):06d}"))
    return record


def text_mutate(line: str, rng: random.Random) -> str:
    """Changes to the line's text itself."""
    pick = rng.randrange(10)
    if pick == 0:  # a duplicate key (the first or the last one wins, depending on the parser)
        key, value = rng.choice(
            [
                ('"cost"', "5"),
                ('"currency"', '"EUR"'),
                ('"labels"', "[]"),
                ('"usage_start_time"', '"2026-10-02 00:00:00 UTC"'),
                ('"sku"', '{"id":"x","description":"Tax"}'),
            ]
        )
        return line.replace("{", "{" + key + ":" + value + ",", 1)
    if pick == 1:
        return line.replace('"cost":', '"cost":' + rng.choice(['5,"cost":', " ", "\t"]), 1)
    if pick == 2:  # the last key twice
        return line[:-1] + ',"cost":' + rng.choice(["1", '"1"', "null", "1e400"]) + "}"
    if pick == 3:
        return " " + line + rng.choice([" ", "\t", "  "])
    if pick == 4:
        return line.replace("/", "\\/", 1)
    if pick == 5:
        return line + rng.choice([" x", ",", "}", " {}", "\x00"])
    if pick == 6:
        return line.replace('"', "'", 2)
    if pick == 7:
        return line.replace(":", ": ", rng.randrange(1, 5))
    if pick == 8:
        return line.replace(' UTC"', ' UTC" ', 1).replace("null", " null ", 1)
    return line.replace('"usage":{', '"usage" : {', 1)


# -- changes that keep a line plain -------------------------------------------------------
# The columnar statement's own arithmetic and text only run on lines it takes itself: these
# changes keep a line compact, ASCII and in the export's field order, so most stay plain.


def _decimal(rng: random.Random, places: int, integer_digits: int) -> str:
    whole = str(rng.randrange(10 ** rng.randrange(1, integer_digits + 1)))
    text = whole if rng.random() < 0.3 else f"{whole}.{rng.randrange(10**places):0{places}d}"
    if rng.random() < 0.2:
        text += "0" * rng.randrange(1, 4)  # trailing zeros
    return ("-" if rng.random() < 0.3 else "") + text


PLAIN_MONEY = [
    "1000000000000",
    "-1000000000000",
    "999999999999.999999999",
    "1000000000000.000000001",
    "0.000000001",
    "-0.000000001",
    "0.000000000",
    "-0.0",
    "0",
    "-0",
    "0.5",
    "1.000000001",
    "0.000000005",
    "0.000000015",
    "0.000000025",
    "99999999999.999999999",
]
PLAIN_RATES = [
    "2",
    "4",
    "8",
    "0.5",
    "0.25",
    "1.6",
    "0.8",
    "3",
    "7",
    "0.3",
    "1.000000000000000000",
    "0.000000000000000001",
    "9999999999.999999999999999999",
    "0.92",
    "151.234567",
    "1",
    "1.0",
    "0.999999999999999999",
    "1.000000000000000001",
    "16000.5",
    "0.000001",
    "0.1",
]
PLAIN_TIMES = [
    "2000-01-01 00:00:00 UTC",
    "2100-01-01 00:00:00 UTC",
    "1999-12-31 23:59:59.999999 UTC",
    "2100-01-01 00:00:00.000001 UTC",
    "2026-10-01 00:00:00.000001 UTC",
    "2026-10-01 00:59:59.999999 UTC",
    "2027-10-02 00:00:00 UTC",
    "2027-10-02 00:00:00.000001 UTC",
    "2027-10-01 23:00:00 UTC",
    "2026-10-01 00:00:00.5 UTC",
    "2026-10-01 00:00:00.50 UTC",
    "2026-09-30 23:00:00 UTC",
    "2026-10-01 01:00:00 UTC",
    "2028-02-29 12:00:00 UTC",
]
ASCII_TEXT = [
    "",
    " ",
    "a b",
    "a,b",
    "a:b",
    "{x}",
    "[y]",
    "a, b",
    "k: v",
    "null",
    "true",
    "0",
    "-1",
    "1e5",
    "~`!@#$%^&*()_+-=|;'<>?/",
    "team=llm",
    "  lead",
    "trail  ",
    "'quoted'",
]


def plain_mutate(record: dict, rng: random.Random) -> dict:
    """One to three changes of value that a plain line may carry."""
    record = copy.deepcopy(record)
    for _ in range(rng.choice((1, 2, 3))):
        kind = rng.randrange(9)
        if kind == 0:
            path = rng.choice(PATHS_NUMERIC)
            value = rng.choice(PLAIN_MONEY) if rng.random() < 0.4 else _decimal(rng, 9, 13)
            _set(record, path, value if rng.random() < 0.5 else Raw(value))
        elif kind == 1:
            rate = rng.choice(PLAIN_RATES)
            record["currency"] = rng.choice(["EUR", "JPY", "USD", ""])
            record["currency_conversion_rate"] = rate if rng.random() < 0.5 else Raw(rate)
            if rng.random() < 0.5:
                record["cost"] = Raw(rng.choice(PLAIN_MONEY + [_decimal(rng, 9, 11)]))
        elif kind == 2:
            _set(record, rng.choice(PATHS_TIME), rng.choice(PLAIN_TIMES))
        elif kind == 3:
            _set(record, rng.choice(PATHS_TEXT[:18]), rng.choice(ASCII_TEXT))
        elif kind == 4:  # a field left out, null, empty
            path = rng.choice(all_paths(record))
            _set(record, path, rng.choice([DROP, None, [], {}]))
        elif kind == 5:
            record["credits"] = [
                {
                    "name": rng.choice(ASCII_TEXT),
                    "amount": Raw(rng.choice(PLAIN_MONEY)),
                    "full_name": None,
                    "id": "x",
                    "type": "PROMOTION",
                }
                for _ in range(rng.randrange(4))
            ]
        elif kind == 6:
            record["labels"] = [
                {"key": rng.choice(ASCII_TEXT), "value": rng.choice(ASCII_TEXT + [None])}
                for _ in range(rng.randrange(4))
            ]
        elif kind == 7:
            _set(record, ("sku", "description"), rng.choice(SKUS))
            _set(record, ("usage", "unit"), rng.choice(UNITS))
            _set(
                record,
                ("usage", "amount"),
                Raw(
                    rng.choice(
                        [
                            "1000000000000",
                            "277777777.777777778",
                            "277777777.777777777",
                            "0.000000001",
                            "3600",
                            _decimal(rng, 9, 12),
                        ]
                    )
                ),
            )
        else:
            _set(record, ("invoice", "month"), rng.choice(MONTHS))
    return record


def plain_lines(records: list[dict], seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [dumps(plain_mutate(rng.choice(records), rng), rng, compact=True) for _ in range(count)]


# -- the inputs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base() -> list[dict]:
    """One simulated day of a tiny fleet (8 GPUs, 4 TPU chips, full billing detail): every
    kind of row the simulator bills, as the NDJSON extract writes it (~350 rows)."""
    start = day_start_us(DEFAULT_START)
    fleet = build_fleet(8, 4, start, start + DAY_US, 3)
    rows = day_rows(fleet, build_schedule(fleet, 3, 1.0), 0, 3, "full")
    return rows


def ndjson_records(rows: list[dict]) -> list[dict]:
    return [json.loads(ndjson_line(row)) for row in rows]


def fuzz_lines(records: list[dict], seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        record = rng.choice(records)
        if rng.random() < 0.85:
            record = mutate(record, rng)
        line = dumps(record, rng)
        if rng.random() < 0.15:
            line = text_mutate(line, rng)
        lines.append(line)
    return lines


def write_ndjson(path: Path, lines: list[str], rng: random.Random | None = None) -> Path:
    """Lines as an extract; with `rng`, blank lines between some and the last one torn."""
    out = []
    for line in lines:
        out.append(line)
        if rng is not None and rng.random() < 0.03:
            out.append(rng.choice(["", "   ", "\t"]))
    if rng is not None:
        out[-1] = out[-1][: len(out[-1]) // 2]  # a torn last line, no newline after it
        data = "\n".join(out)
    else:
        data = "\n".join(out) + "\n"
    path.write_bytes(data.encode("utf-8", errors="surrogatepass"))
    return path


# -- the comparison ------------------------------------------------------------------------


def read_both(files: list[Path], days: set[date] | None = None):
    out = []
    for engine in (None, ArrowSQL(threads=1)):
        stats = BillingRead()
        batches = list(iter_billing_batches(files, stats, days, NOW, engine=engine))
        table = pa.concat_tables(batches) if batches else BILLING_SCHEMA.empty_table()
        out.append((table, stats))
        if engine is not None:
            engine.close()
    return out


def differences(files: list[Path], days: set[date] | None = None) -> list[str]:
    """Every way the two readers disagree, one line each (the line's text when it has one)."""
    (a, stats_a), (b, stats_b) = read_both(files, days)
    found = []
    if a.schema != b.schema:
        found.append(f"schema: {a.schema} != {b.schema}")
    rows_a, rows_b = a.to_pylist(), b.to_pylist()
    by_a = {(r["source"], r["source_line"]): r for r in rows_a}
    by_b = {(r["source"], r["source_line"]): r for r in rows_b}
    q_a = {(q.file, q.line): q for q in stats_a.quarantined}
    q_b = {(q.file, q.line): q for q in stats_b.quarantined}
    texts = {}
    for path in files:
        if path.suffix == ".ndjson":
            for n, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
                texts[(str(path), n)] = raw.decode("utf-8", "replace")[:400]
    for key in sorted(set(by_a) | set(by_b) | set(q_a) | set(q_b), key=str):
        where = f"{Path(key[0]).name}:{key[1]}"
        text = texts.get(key, "")
        ra, rb = by_a.get(key), by_b.get(key)
        if (ra is None) != (rb is None):
            qa, qb = q_a.get(key), q_b.get(key)
            found.append(
                f"{where} loaded per-row={ra is not None} columnar={rb is not None} "
                f"(per-row: {qa and qa.reason!r}; columnar: {qb and qb.reason!r}) {text}"
            )
        elif ra is not None and rb is not None and ra != rb:
            cols = [c for c in ra if ra[c] != rb[c]]
            detail = "; ".join(f"{c}: {ra[c]!r} != {rb[c]!r}" for c in cols[:4])
            found.append(f"{where} {detail} {text}")
        elif q_a.get(key) != q_b.get(key):
            found.append(f"{where} quarantine {q_a.get(key)!r} != {q_b.get(key)!r} {text}")
    if not found and rows_a != rows_b:
        found.append("rows in another order")
    if not found and stats_a.quarantined != stats_b.quarantined:
        found.append("quarantine in another order")
    counts = ("rows_read", "rows_in_window", "rows_outside_window", "rows_quarantined")
    for name in counts:
        if getattr(stats_a, name) != getattr(stats_b, name):
            found.append(f"{name}: {getattr(stats_a, name)} != {getattr(stats_b, name)}")
    return found


def plain_share(path: Path, data: bytes | None) -> tuple[int, int]:
    """(rows the columnar statement took itself, rows) of one extract."""
    with ArrowSQL(threads=1) as engine:
        ((_, table, rest),) = plain_rows(engine, [(path, data)], NOW, DEFAULT_LIMITS)
        return table.num_rows, table.num_rows + sum(1 for _ in rest)


# -- the tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", range(3))
def test_fuzzed_ndjson_extracts_read_alike(base, tmp_path, case):
    """A few hundred mutated export lines, blank lines among them and a torn last one."""
    records = ndjson_records(base)
    rng = random.Random(SEED + case)
    lines = fuzz_lines(records, SEED + case, LINES_PER_CASE)
    path = write_ndjson(tmp_path / f"fuzz-{case}.ndjson", lines, rng)
    found = differences([path])
    assert not found, "\n".join(found[:30])
    # The fuzz reaches the columnar statement: a good share of lines is taken there.
    taken, total = plain_share(path, path.read_bytes())
    assert total == sum(1 for line in path.read_text().split("\n") if line.strip())
    assert taken > total // 10


@pytest.mark.parametrize("case", range(2))
def test_plain_changes_read_alike(base, tmp_path, case):
    """Changes a plain line may carry (amounts at the limits, USD rounding ties, rates, times
    at the window's edges, odd ASCII text, omitted fields): the columnar statement's own
    arithmetic and text, line by line against the normaliser's."""
    lines = plain_lines(ndjson_records(base), SEED + 30 + case, LINES_PER_CASE)
    path = write_ndjson(tmp_path / f"plain-{case}.ndjson", lines)
    found = differences([path])
    assert not found, "\n".join(found[:30])
    taken, total = plain_share(path, path.read_bytes())
    assert taken > total // 3


def test_unmutated_rows_are_all_taken_in_columns(base, tmp_path):
    """The simulator's own extract: every row is plain, and both readers agree on it."""
    lines = [ndjson_line(row) for row in base]
    path = write_ndjson(tmp_path / "clean.ndjson", lines)
    assert not differences([path])
    assert plain_share(path, path.read_bytes()) == (len(lines), len(lines))


def test_file_level_variants_read_alike(base, tmp_path):
    """BOM, CRLF, blank lines, whitespace-only lines, a torn last line, files in a group, and
    a day window."""
    records = ndjson_records(base)
    lines = fuzz_lines(records, SEED + 10, 60)
    body = "\n".join(lines).encode()
    files = []
    for name, data in [
        ("bom", b"\xef\xbb\xbf" + body + b"\n"),
        ("crlf", body.replace(b"\n", b"\r\n") + b"\r\n"),
        ("blank", b"\n\n" + body.replace(b"\n", b"\n \n", 5) + b"\n\n"),
        ("torn", body[: len(body) - 40]),
        ("one-torn", lines[0][:50].encode()),
        ("empty", b""),
        ("bom-only", b"\xef\xbb\xbf"),
        ("nul", body.replace(b"\n", b"\n\x00\n", 2)),
        ("latin1", body.replace(b"Americas", "Amériques".encode("latin-1"), 3)),
    ]:
        path = tmp_path / f"{name}.ndjson"
        path.write_bytes(data)
        files.append(path)
    assert not differences(files)
    assert not differences(files, days={date(2026, 10, 1)})


# -- Parquet ---------------------------------------------------------------------------------

FLOATS = [
    0.1 + 0.2,
    1e-5,
    -0.0,
    0.0,
    1e30,
    1e-320,
    78.3724050,
    float("inf"),
    float("nan"),
    1e12,
    999999999999.9999,
    1e-10,
    0.5e-9,
    1.5e-9,
    28800.0,
    2.88e4,
    1 / 3,
    1e17 + 1,
]
NUMERICS = [
    Decimal("0.000000000"),
    Decimal("-0E-9"),
    Decimal("1E-9"),
    Decimal("9.796550569"),
    Decimal("99999999999999999999999999999.999999999"),
    Decimal("0.100000000"),
    Decimal(-1),
    Decimal("12345678901234567890.123456789"),
    None,
]
P_STRINGS: list[Any] = ["équipe", 'a"b', "a\\b", "line\nbreak", "", " ", "😀", "\x01", None, "x/y"]
P_TIMES = [
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(2026, 10, 1, 0, 0, 0, 1, tzinfo=UTC),
    datetime(2026, 10, 1, 0, 0, 0, 500000, tzinfo=UTC),
    datetime(1999, 12, 31, tzinfo=UTC),
    datetime(2100, 1, 1, tzinfo=UTC),
    datetime(2100, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
    datetime(1970, 1, 1, tzinfo=UTC),
    None,
    datetime(2026, 9, 30, 23, tzinfo=UTC),
    datetime(2027, 10, 2, tzinfo=UTC),
]


def parquet_mutate(record: dict, rng: random.Random) -> dict:
    record = copy.deepcopy(record)
    for _ in range(rng.choice((1, 1, 2))):
        kind = rng.randrange(10)
        if kind == 0:
            path = rng.choice(
                [
                    ("cost",),
                    ("cost_at_list",),
                    ("currency_conversion_rate",),
                    ("usage", "amount"),
                    ("usage", "amount_in_pricing_units"),
                    ("credits", 0, "amount"),
                    ("cost_at_effective_price_default",),
                ]
            )
            _set(record, path, rng.choice(FLOATS))
        elif kind == 1:
            path = rng.choice(
                [
                    ("price", "effective_price"),
                    ("price", "list_price"),
                    ("price", "tier_start_amount"),
                    ("price", "pricing_unit_quantity"),
                ]
            )
            _set(record, path, rng.choice(NUMERICS))
        elif kind == 2:
            _set(record, rng.choice(PATHS_TIME), rng.choice(P_TIMES))
        elif kind == 3:
            path = rng.choice([p for p in PATHS_TEXT if p[-1] not in ("inherited",)])
            _set(record, path, rng.choice(P_STRINGS))
        elif kind == 4:
            which = rng.choice(["labels", "system_labels", "credits", "tags"])
            _set(record, (which,), rng.choice([[], None]))
        elif kind == 5:
            which = rng.choice(["labels", "system_labels"])
            _set(
                record,
                (which,),
                copy.deepcopy(
                    rng.choice(
                        [
                            [{"key": "a", "value": "1"}, {"key": "a", "value": "2"}],
                            [{"key": None, "value": "x"}],
                            [{"key": "a", "value": None}],
                            [None],
                            [{"key": "é", "value": "ü"}],
                            [{"key": 'q"', "value": "\\"}],
                        ]
                    )
                ),
            )
        elif kind == 6:
            currency, rate = rng.choice(
                [
                    ("EUR", 0.92),
                    ("JPY", 151.234567),
                    ("XXX", 1e-9),
                    ("EUR", 0.0),
                    ("EUR", -0.92),
                    ("EUR", 1e-20),
                    ("EUR", 1.0),
                ]
            )
            record["currency"], record["currency_conversion_rate"] = currency, rate
        elif kind == 7:
            _set(record, ("sku", "description"), rng.choice(SKUS))
        elif kind == 8:
            _set(record, ("usage", "unit"), rng.choice(UNITS))
        else:
            paths = [p for p in all_paths(record) if not isinstance(p[-1], int)]
            path = rng.choice(paths)
            _set(record, path, None)
    return record


def parquet_records(rows: list[dict]) -> list[dict]:
    return [
        {f.name: _value(f, row.get(f.name), _arrow_leaf) for f in EXPORT_FIELDS} for row in rows
    ]


def test_fuzzed_parquet_extracts_read_alike(base, tmp_path):
    """Mutated rows in the export's Parquet schema: floats like 0.1+0.2, NUMERIC prices, NaN,
    times with microseconds, strings with quotes and escapes, duplicate label keys."""
    records = parquet_records(base)
    rng = random.Random(SEED + 20)
    rows = [
        parquet_mutate(rng.choice(records), rng) if rng.random() < 0.85 else rng.choice(records)
        for _ in range(LINES_PER_CASE)
    ]
    path = tmp_path / "fuzz.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=EXPORT_PARQUET_SCHEMA), path)
    found = differences([path])
    assert not found, "\n".join(found[:30])
    taken, total = plain_share(path, None)
    assert total == len(rows) and taken > total // 10


# -- hand cases ------------------------------------------------------------------------------


def hand_lines(records: list[dict]) -> list[str]:
    """Targeted lines: each of the listed spellings in each numeric, time and label field of a
    GPU row, one change a line."""
    gpu = next(r for r in records if "H100" in r["sku"]["description"] and r["credits"])
    rng = random.Random(0)
    lines = []
    compact = (",", ":")
    for path in PATHS_NUMERIC:
        for token in NUMBER_TOKENS + RAW_LITERALS:
            record = copy.deepcopy(gpu)
            if _set(record, path, Raw(token)):
                lines.append(dumps(record, rng))
        for value in NUMBER_STRINGS + NUMBER_OTHERS:
            record = copy.deepcopy(gpu)
            if _set(record, path, copy.deepcopy(value)):
                lines.append(json.dumps(record, separators=compact))
    for path in PATHS_TIME:
        for value in TIMES:
            record = copy.deepcopy(gpu)
            _set(record, path, value)
            lines.append(json.dumps(record, separators=compact))
    for which in ("labels", "system_labels", "credits"):
        for value in LABELS + CREDITS:
            record = copy.deepcopy(gpu)
            _set(record, (which,), DROP if value == "missing" else copy.deepcopy(value))
            lines.append(json.dumps(record, separators=compact))
    for currency, rate in CURRENCIES:
        record = copy.deepcopy(gpu) | {"currency": currency, "currency_conversion_rate": rate}
        lines.append(json.dumps(record, separators=compact))
    for sku in SKUS:
        for unit in UNITS:
            record = copy.deepcopy(gpu)
            record["sku"]["description"] = sku
            record["usage"]["unit"] = unit
            lines.append(json.dumps(record, separators=compact))
    for path in PATHS_TEXT:
        for value in STRINGS:
            # escaped (\u00e9) and as UTF-8, where the two differ
            plain = not isinstance(value, str) or value.isascii()
            for ascii_only in (True,) if plain else (True, False):
                record = copy.deepcopy(gpu)
                if _set(record, path, copy.deepcopy(value)):
                    lines.append(json.dumps(record, separators=compact, ensure_ascii=ascii_only))
    for month in MONTHS:
        record = copy.deepcopy(gpu)
        record["invoice"]["month"] = month
        lines.append(json.dumps(record, separators=compact))
    return lines


def test_hand_cases_read_alike(base, tmp_path):
    lines = hand_lines(ndjson_records(base))
    path = write_ndjson(tmp_path / "hand.ndjson", lines)
    found = differences([path])
    assert not found, "\n".join(found[:30])


def _parquet_with(path: Path, name: str, values: pa.Array) -> Path:
    """test_billing_columnar.py's two Parquet rows, one column replaced."""
    table = pq.read_table(_parquet(path.with_suffix(".base.parquet")))
    i = table.schema.get_field_index(name)
    pq.write_table(table.set_column(i, name, values.cast(table.schema.field(i).type)), path)
    return path


# datetime's last microsecond plus an hour: year 10000 (microseconds since the epoch)
YEAR_10000 = 253_402_300_800_000_000 + 3_600_000_000
# two strings, the second not UTF-8 (offsets 0, 1, 2 over the bytes b"a\xff")
NOT_UTF8 = pa.Array.from_buffers(
    pa.string(),
    2,
    [None, pa.py_buffer(pa.array([0, 1, 2], pa.int32()).buffers()[1]), pa.py_buffer(b"a\xff")],
)
PARQUET_REGRESSIONS = [
    (
        "a time past year 9999: the columnar reader's to_pylist of the rows it hands on "
        "raised (the run failed); the per-row reader quarantines the file",
        "export_time",
        pa.array([1_790_812_800_000_000, YEAR_10000], pa.int64()),
    ),
    (
        "a string that is not UTF-8: DuckDB's statement failed for every Parquet extract; "
        "the per-row reader quarantines the file",
        "billing_account_id",
        NOT_UTF8,
    ),
]


@pytest.mark.parametrize(
    ("why", "name", "values"), PARQUET_REGRESSIONS, ids=[w[:40] for w, *_ in PARQUET_REGRESSIONS]
)
def test_parquet_regressions_read_alike(tmp_path, why, name, values):
    path = _parquet_with(tmp_path / "regression.parquet", name, values)
    found = differences([path])
    assert not found, why + "\n" + "\n".join(found)


def test_a_corrupt_parquet_extract_reads_alike(tmp_path):
    """One byte flipped in a Parquet extract whose footer still reads: DuckDB's statement
    failed for every Parquet extract ("Page sizes must be >= 0", thrift errors) where the
    per-row reader quarantines the file. The offsets are ones that failed (test_billing_
    columnar.py's two rows as this pyarrow writes them); the rest of the file's every 97th
    byte was tried too and read alike."""
    data = _parquet(tmp_path / "base.parquet").read_bytes()
    files = []
    for offset in (3791, 3888, 3985, 4082, 8544):
        path = tmp_path / f"flipped-{offset}.parquet"
        path.write_bytes(data[:offset] + bytes([data[offset] ^ 0xFF]) + data[offset + 1 :])
        files.append(path)
    found = differences(files)
    assert not found, "\n".join(found)


def test_an_extract_listed_twice_reads_alike(tmp_path):
    """The same files twice in one call: the per-row reader reads each listing (so every row
    twice); the columnar reader once gave each listing the rows of both (4x), and counted
    Parquet rows thrice."""
    ndjson = write_ndjson(tmp_path / "a.ndjson", [regression(), regression(cost=5)])
    parquet = _parquet(tmp_path / "b.parquet")
    for files in ([ndjson, ndjson], [parquet, parquet], [ndjson, parquet, ndjson, parquet]):
        found = differences(files)
        assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "name", ["x[1].parquet", "b*.parquet", "c?.parquet", "d{1}.parquet", "e]1.parquet"]
)
def test_a_parquet_name_with_glob_characters_reads_alike(tmp_path, name):
    """DuckDB takes a Parquet path as a glob: `x[1].parquet` beside `x1.parquet` read the other
    file, and the run failed (KeyError on the name DuckDB gave back). Braces and a lone `]` are
    no glob to DuckDB (paths/: such a name is read in columns, beside its twin)."""
    path = _parquet(tmp_path / name)
    for glob, one in (("[1]", "1"), ("*", "1"), ("?", "1"), ("{1}", "1"), ("]", "")):
        name = name.replace(glob, one)
    shutil.copy(path, tmp_path / name)
    found = differences([path])
    assert not found, "\n".join(found)


def test_limits_past_decimal_38_9_read_alike(tmp_path):
    """Limits a caller may build (the config file stops at 1e26): a bound of 1e30 failed the
    statement's cast of its parameter to DECIMAL(38, 9)."""
    path = write_ndjson(tmp_path / "a.ndjson", [regression(), regression(cost=5e28)])
    big = Decimal(10) ** 30
    limits = Limits(max_money=big, max_usage=big, max_accelerator_seconds=big)
    out = []
    for engine in (None, ArrowSQL(threads=1)):
        stats = BillingRead()
        batches = list(iter_billing_batches([path], stats, None, NOW, limits=limits, engine=engine))
        out.append((pa.concat_tables(batches).to_pylist(), stats.quarantined))
        if engine is not None:
            engine.close()
    assert out[0] == out[1]
    assert len(out[0][0]) == 2


def test_the_regression_base_line_is_plain(tmp_path):
    """Regression lines start from a line the columnar statement takes itself."""
    path = write_ndjson(tmp_path / "base.ndjson", [regression()])
    assert plain_share(path, path.read_bytes()) == (1, 1)


@pytest.mark.parametrize(("why", "line"), REGRESSIONS, ids=[w for w, _ in REGRESSIONS])
def test_regressions_read_alike(tmp_path, why, line):
    """The one-line cases earlier differences were minimised to."""
    path = write_ndjson(tmp_path / "regression.ndjson", [line])
    found = differences([path])
    assert not found, why + "\n" + "\n".join(found)
