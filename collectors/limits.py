"""Bounds every reader checks before a value reaches the warehouse: data, not `if` chains.

A value outside its bound is quarantined with a reason that names the field and the bound;
it never widens the ingest window and never reaches an aggregation. The defaults sit far
above any real bill, and `flopledger.yaml`'s `limits:` block may move them
(settings/config_file.py); `pipelines/` turns that block into a `Limits`.

Why the defaults cannot overflow (DECIMAL(38, 9) holds |x| < 1e29; HUGEINT < 1.7e38):
- money per row <= 1e12 (a trillion in the row's currency): a sum of N rows stays below
  1e29 for N < 1e17 rows; billing at 1e9 rows a year would take 1e8 years to get there.
- billing_hourly spreads a row as floor(nanos * elapsed_us / total_us) in HUGEINT: nanos
  <= 1e12 * 1e9 = 1e21, elapsed_us <= a row's span <= 366 days = 3.2e13 us, so the product
  stays below 3.2e34, well under 1.7e38.
- accelerator-seconds per row <= 1e12 (31,700 chip-years), the same arithmetic as money.
- usage amounts <= 1e24 (an exabyte stored for a month is 2.6e24 byte-seconds... split
  per hour, as exports do, it is 3.6e21); marts sum them as DOUBLE, which cannot overflow.
- integers fit their Arrow column (int32 or int64), floats are finite, percentages in
  [0, 100] (with a little slack for counters that round past 100).
- accelerators a run holds on one resource <= the most any machine of that accelerator type
  holds (a whole TPU slice where a resource may be one; accelerators/machines.py), or
  max_accelerators_per_node for a run that names no type: a pod asking for a billion GPUs is
  quarantined whole, never clipped, so it takes no node's hours from the runs that ran there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from flopledger.accelerators.machines import most_per_machine, most_per_resource

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


class OutOfBounds(ValueError):
    """A value that parsed but lies outside its bound; the message is the quarantine reason."""


@dataclass(frozen=True)
class Limits:
    """The bounds one run checks against (see the module docstring for why these defaults)."""

    earliest: datetime = datetime(2000, 1, 1)
    latest: datetime = datetime(2100, 1, 1)
    max_money: Decimal = Decimal(10) ** 12
    max_usage: Decimal = Decimal(10) ** 24
    max_accelerator_seconds: Decimal = Decimal(10) ** 12
    max_row_span: timedelta = timedelta(days=366)
    max_nodes_per_job: int = 4096
    # Accelerators on one node when the run names no accelerator type (a known type is
    # bounded by its machines: accelerators/machines.py). The largest machine known holds 16.
    max_accelerators_per_node: int = 64
    max_pct: float = 100.5

    @classmethod
    def around(
        cls, now: datetime, earliest: datetime | None = None, future_days: int = 7, **rest
    ) -> Limits:
        """Limits whose latest timestamp is `now` plus `future_days` (clock skew, time zones)."""
        now = now if now.tzinfo is None else now.astimezone(UTC).replace(tzinfo=None)
        return cls(
            earliest=earliest or cls.earliest,
            latest=now + timedelta(days=future_days),
            **rest,
        )

    def time(self, what: str, moment: datetime | None) -> datetime | None:
        if moment is not None and not (self.earliest <= moment <= self.latest):
            raise OutOfBounds(
                f"{what}: {moment.isoformat()} is outside the plausible window "
                f"{self.earliest.date()} .. {self.latest.date()} (limits.earliest/future_days)"
            )
        return moment

    def span(self, what: str, start: datetime, end: datetime) -> None:
        if end - start > self.max_row_span:
            raise OutOfBounds(
                f"{what}: spans {end - start}, more than {self.max_row_span.days} days"
            )

    def money(self, what: str, amount: Decimal | None) -> Decimal | None:
        return _within(what, amount, self.max_money, "limits.max_money")

    def usage(self, what: str, amount: Decimal | None) -> Decimal | None:
        return _within(what, amount, self.max_usage, "limits.max_usage")

    def accelerator_seconds(self, what: str, amount: Decimal | None) -> Decimal | None:
        return _within(what, amount, self.max_accelerator_seconds, "limits.max_accelerator_seconds")

    def nodes(self, what: str, count: int) -> None:
        if count > self.max_nodes_per_job:
            raise OutOfBounds(
                f"{what}: {count:,} nodes, more than limits.max_nodes_per_job "
                f"({self.max_nodes_per_job:,})"
            )

    def _most_on_one(self, accelerator_type: str | None, whole_slice: bool) -> tuple[int, str]:
        """The most accelerators of the type one resource (one machine unless `whole_slice`:
        a billed resource may be a TPU slice) holds, and where that bound comes from."""
        most = (most_per_resource if whole_slice else most_per_machine)(accelerator_type)
        if most is None:
            return self.max_accelerators_per_node, "limits.max_accelerators_per_node"
        where = "slice" if whole_slice and most != most_per_machine(accelerator_type) else "machine"
        return most, f"the largest {accelerator_type} {where}: accelerators/machines.py"

    def accelerators_on_one(
        self, what: str, held: Fraction, accelerator_type: str | None, whole_slice: bool = False
    ) -> None:
        """`held` accelerators (a MIG slice counts its share) on one resource at one moment."""
        most, source = self._most_on_one(accelerator_type, whole_slice)
        if held > most:
            raise OutOfBounds(
                f"{what}: {_count(held)} {accelerator_type or 'accelerators'} on one "
                f"{'resource' if whole_slice else 'node'} at once, more than {most:,} ({source})"
            )

    def accelerators_per_run(
        self, what: str, count: int | None, accelerator_type: str | None, whole_slice: bool
    ) -> None:
        """A run's accelerator count: at most max_nodes_per_job resources, each full."""
        most, source = self._most_on_one(accelerator_type, whole_slice)
        if count is not None and count > most * self.max_nodes_per_job:
            raise OutOfBounds(
                f"{what}: {count:,} {accelerator_type or 'accelerators'}, more than "
                f"limits.max_nodes_per_job ({self.max_nodes_per_job:,}) x {most:,} on each "
                f"({source}) = {most * self.max_nodes_per_job:,}"
            )


DEFAULT_LIMITS = Limits()


def _count(held: Fraction) -> str:
    """1,000,000,000; a MIG share as 9 2/7."""
    whole, part = divmod(held, 1)
    return f"{int(whole):,}" + (f" {part}" if part else "")


def _within(what: str, amount: Decimal | None, bound: Decimal, key: str) -> Decimal | None:
    if amount is not None and abs(amount) > bound:
        raise OutOfBounds(f"{what}: {amount} is beyond {key} ({bound:.0e})")
    return amount


def finite(what: str, value: float | None) -> float | None:
    """A float that is a real number (not NaN, not infinite), else OutOfBounds."""
    if value is not None and not math.isfinite(value):
        raise OutOfBounds(f"{what}: {value!r} is not a finite number")
    return value


def fits(what: str, value: int | None, maximum: int = INT64_MAX) -> int | None:
    """An integer that fits its column (int32 or int64), else OutOfBounds."""
    if value is not None and not (-maximum - 1 <= value <= maximum):
        column = "INTEGER" if maximum == INT32_MAX else "BIGINT"
        raise OutOfBounds(f"{what}: {value} does not fit its {column} column")
    return value
