"""A budgets.yaml for a simulated fleet: some budgets cross a threshold or forecast an overrun.

The simulator calls `write_demo_budgets` with the expected effective spend per day of each
team (USD) and the days it simulates, and points its config's `budgets` at the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import ROUND_UP, Decimal
from pathlib import Path

import yaml

from flopledger.budgets.periods import period_containing


def _round(amount: Decimal) -> str:
    return str(amount.quantize(Decimal("1"), rounding=ROUND_UP))


def _budget(name: str, scope: dict, period: str, amount: Decimal, **extra: object) -> dict:
    return {
        "name": name,
        "scope": scope,
        "period": period,
        "amount": _round(max(amount, Decimal(1))),
        "currency": "USD",
        "thresholds": [50, 80, 100],
        "forecast_alerts": True,
        "channels": ["oncall"],
        **extra,
    }


def demo_budgets(daily_spend_by_team: Mapping[str, Decimal], start: date, days: int) -> dict:
    """The busiest team's month budget is set so its simulated spend reaches about 85%
    (50% and 80% crossed, forecast over); the other teams' are 1.5x their whole month,
    so they stay quiet; a fleet-wide weekly budget sits at 90% of a week's spend."""
    teams = sorted(daily_spend_by_team, key=lambda t: (-daily_spend_by_team[t], t))
    month = period_containing("month", start)
    elapsed = min(days, month.days)
    budgets = []
    for i, team in enumerate(teams):
        daily = Decimal(daily_spend_by_team[team])
        amount = (
            daily * elapsed / Decimal("0.85") if i == 0 else daily * month.days * Decimal("1.5")
        )
        budgets.append(_budget(f"{team}-monthly", {"team": team}, "month", amount))
    fleet = sum((Decimal(v) for v in daily_spend_by_team.values()), Decimal(0))
    budgets.append(
        _budget("fleet-weekly", {}, "week", fleet * 7 * Decimal("0.9"), week_start="monday")
    )
    return {
        "forecast_window_days": 7,
        "channels": {"oncall": {"kind": "slack", "url_env": "FLOPLEDGER_WEBHOOK_ONCALL"}},
        "budgets": budgets,
        "rules": {
            "spend_change": [
                {
                    "name": "team-daily-jump",
                    "group_by": "team",
                    "baseline_days": 3,
                    "above_pct": 50,
                    "channels": ["oncall"],
                }
            ],
            "efficiency": [
                {
                    "name": "idle-share",
                    "metric": "idle_cost_share",
                    "above": 0.3,
                    "window_days": 7,
                    "channels": ["oncall"],
                }
            ],
            "health": {"channels": ["oncall"]},
        },
    }


def write_demo_budgets(
    out_dir: Path, daily_spend_by_team: Mapping[str, Decimal], start: date, days: int
) -> Path:
    """Write `out_dir/budgets.yaml` and return its path (set the config's `budgets` to it)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "budgets.yaml"
    text = yaml.safe_dump(demo_budgets(daily_spend_by_team, start, days), sort_keys=False)
    path.write_text("# Demo budgets scaled to the simulated fleet (budgets/demo.py).\n" + text)
    return path
