"""Whether a `schedules:` cron string is one flopledger's schedules take, said when the config
loads (not as a DagsterInvalidDefinitionError when the definitions are built).

Dagster lives in pipelines/ alone, and importing it costs a second that every command would
pay, so the check is done here without it. It takes the standard five-field forms: numbers and
names (`jan`..`dec`, `sun`..`sat`), `*`, ranges, steps and lists, and the @-macros Dagster
knows. It refuses what is not portable even where Dagster's croniter reads it (`L`, `#`, `?`,
a range that wraps backwards such as `5-1`, a step larger than the field), and a 30th or 31st
whose months are all February, as Dagster does. tests/settings/test_config_validation.py checks
that everything taken here is taken by Dagster too.
"""

from __future__ import annotations

import re

MACROS = frozenset(
    {"@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually"}
)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
# minute, hour, day of month, month, day of week (0 and 7 are Sunday), and each field's names
FIELDS: tuple[tuple[int, int, dict[str, int]], ...] = (
    (0, 59, {}),
    (0, 23, {}),
    (1, 31, {}),
    (1, 12, {name: n for n, name in enumerate(MONTHS, start=1)}),
    (0, 7, {name: n for n, name in enumerate(WEEKDAYS)}),
)
_ITEM = re.compile(r"^(?:\*|([0-9a-z]{1,3})(?:-([0-9a-z]{1,3}))?)(?:/(\d{1,2}))?$")
EXAMPLE = "'0 5 * * *' (minute hour day month weekday, UTC)"
HINT = (
    f"not a cron schedule: five fields, e.g. {EXAMPLE}, or @daily, @hourly, ...; "
    "numbers, jan..dec, sun..sat, *, ranges, /steps and lists (not L, #, ?)"
)


def _value(token: str, names: dict[str, int]) -> int | None:
    if token.isdigit():
        return int(token)
    return names.get(token)


def _expand(item: str, low: int, high: int, names: dict[str, int]) -> list[int] | None:
    """The values one item of a field stands for; None when it is not a valid item."""
    m = _ITEM.match(item.lower())
    if not m:
        return None
    first, last, step = m.groups()
    start = low if first is None else _value(first, names)
    if last is not None:
        end = _value(last, names)
    else:
        end = high if first is None or step is not None else start
    if start is None or end is None or not low <= start <= end <= high:
        return None
    if step is not None and not 1 <= int(step) <= high:
        return None
    return list(range(start, end + 1, int(step or 1)))


def _valid(text: str) -> bool:
    text = text.strip()
    if text in MACROS:
        return True
    fields = text.split(" ")
    if len(fields) != 5:
        return False
    values = []
    for field, (low, high, names) in zip(fields, FIELDS, strict=True):
        field_values: set[int] = set()
        for item in field.split(","):
            expanded = _expand(item, low, high, names)
            if expanded is None:
                return False
            field_values |= set(expanded)
        values.append(field_values)
    days, months = values[2], values[3]
    # Dagster refuses a schedule that can never fire: a 30th or 31st of February only.
    return not (months == {2} and min(days) >= 30)


def cron_problem(text: str) -> str | None:
    """Why `text` is not a cron string the schedules take; None when it is one."""
    return None if _valid(text) else HINT
