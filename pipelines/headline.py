"""The headline figures a finance analyst reads after a run."""

from __future__ import annotations

from decimal import Decimal

from pipelines.warehouse import Warehouse


def _money(amount: Decimal | None, currency: str) -> str:
    return "-" if amount is None else f"{amount:,.2f} {currency}"


def headline_lines(warehouse: Warehouse, currency: str) -> list[str]:
    totals = warehouse.query(
        """SELECT count(*) AS rows_, sum(cost_usd) AS billed,
                  sum(cost_usd + credits_total_usd) AS effective,
                  min(usage_day) AS first_day, max(usage_day) AS last_day
           FROM billing_line_items"""
    ).to_pylist()[0]
    if not totals["rows_"]:
        return ["", "no billing rows in the warehouse yet"]
    return [
        "",
        f"bill {totals['first_day']} .. {totals['last_day']} ({totals['rows_']:,} rows)",
        f"  billed cost      {_money(totals['billed'], currency):>22}",
        f"  credits          {_money(totals['effective'] - totals['billed'], currency):>22}",
        f"  effective cost   {_money(totals['effective'], currency):>22}",
    ]
