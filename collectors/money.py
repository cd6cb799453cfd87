"""Exact money: decimals with 9 places, rounded half to even, never floats."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation

NANO = Decimal("0.000000001")
# DECIMAL(38, 9) holds 38 significant digits; Python's default context holds 28.
WIDE = Context(prec=60)
MAX_MONEY = Decimal(10) ** 29
# No amount, rate or usage is within a thousand orders of magnitude of 1: past that a number
# is refused before any arithmetic (1e1000000 overflows abs(), 1e-1000000 divides by zero).
MAX_EXPONENT = 1000


class BadNumber(ValueError):
    """A value that should be a number and is not."""


def to_decimal(value: object) -> Decimal | None:
    """A number as written (JSON number, numeric string, float from Parquet) as an exact Decimal.

    Floats go through their shortest repr, which is the text the exporter wrote."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise BadNumber(f"{value!r} is not a number")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, (int, float, str)):
        try:
            result = Decimal(repr(value) if isinstance(value, float) else str(value).strip())
        except InvalidOperation:
            raise BadNumber(f"{value!r} is not a number") from None
    else:
        raise BadNumber(f"{value!r} is not a number")
    if not result.is_finite():
        raise BadNumber(f"{value!r} is not a finite number")
    if result and abs(result.adjusted()) > MAX_EXPONENT:
        raise BadNumber(f"{str(value)[:40]!r} is out of range (exponent past +/-{MAX_EXPONENT})")
    return result


def money(value: Decimal | None) -> Decimal | None:
    """Round to DECIMAL(38, 9): 9 places, half to even. Past DECIMAL(38, 9)'s range: BadNumber."""
    if value is None:
        return None
    if abs(value) >= MAX_MONEY:
        raise BadNumber(f"{value} does not fit DECIMAL(38, 9)")
    return value.quantize(NANO, rounding=ROUND_HALF_EVEN, context=WIDE)


def to_usd(amount: Decimal | None, rate: Decimal | None) -> Decimal | None:
    """USD from a billing-currency amount: amount / currency_conversion_rate (USD -> local)."""
    if amount is None:
        return None
    if rate is None or rate == 1:
        return money(amount)
    if not rate:  # a rate too small for its 18 places (a FLOAT64 of 1e-300) is 0
        raise BadNumber("currency_conversion_rate is 0 at 18 decimal places: no USD amount")
    return money(WIDE.divide(amount, rate))
