"""budgets.yaml validation: each mistake is refused with one line naming the key."""

from datetime import date
from decimal import Decimal as D

import pytest
import yaml

from flopledger.budgets.budget_file import BudgetConfigError, load_budgets, parse_budgets
from flopledger.budgets.demo import write_demo_budgets


def error(text: str) -> str:
    with pytest.raises(BudgetConfigError) as exc:
        parse_budgets(yaml.safe_load(text), "b.yaml")
    assert "\n" not in str(exc.value)
    return str(exc.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("budgets: [{name: a, amount: 10, colour: red}]", "b.yaml: budgets.0.colour: unknown key"),
        ("budgets: [{name: a}]", "b.yaml: budgets.0.amount: Field required (got {'name': 'a'})"),
        (
            "budgets: [{name: a, amount: -5}]",
            "b.yaml: budgets.0.amount: Input should be greater than 0 (got -5)",
        ),
        (
            "budgets: [{name: a, amount: 5, period: year}]",
            "b.yaml: budgets.0.period: Input should be 'month', 'week' or 'quarter' (got 'year')",
        ),
        (
            "budgets: [{name: a, amount: 5, period: week, week_start: funday}]",
            "b.yaml: budgets.0.week_start: must be a weekday name (monday, tuesday, wednesday, thursday, friday, "
            "saturday, sunday)",
        ),
        (
            "budgets: [{name: a, amount: 5, thresholds: [0, 80]}]",
            "b.yaml: budgets.0.thresholds: thresholds are percentages above 0 (e.g. 50, 80, 100)",
        ),
        (
            "budgets: [{name: a, amount: 5, currency: euro}]",
            "b.yaml: budgets.0.currency: String should match pattern '^[A-Z]{3}$' (got 'euro')",
        ),
        (
            "budgets: [{name: a, amount: 5, channels: [slack]}]",
            "b.yaml: (top level): budget a: unknown channel 'slack' (define it under channels)",
        ),
        (
            "budgets: [{name: a, amount: 5}, {name: a, amount: 6}]",
            "b.yaml: (top level): budgets: duplicate name 'a'",
        ),
        (
            "channels: {x: {kind: slack, url: 'https://hooks.slack.com/x'}}",
            "b.yaml: channels.x.url: unknown key (put the URL in an environment variable and name it with url_env)",
        ),
        (
            "rules: {efficiency: [{name: e, metric: idle_cost_share}]}",
            "b.yaml: rules.efficiency.0: give exactly one of above or below",
        ),
        (
            "rules: {health: {stale_after_hours: {billing: 24}}}",
            "b.yaml: rules.health.stale_after_hours: unknown source 'billing' (one of gcp_billing, jobs, nvml_spool, "
            "cloud_monitoring, probes)",
        ),
        ("- a\n- b", "b.yaml: expected a mapping of keys at the top level"),
    ],
)
def test_errors_are_one_line(text, expected):
    assert error(text) == expected


def test_scope_values_may_be_one_or_many(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(
        "budgets: [{name: a, amount: 5.5, scope: {team: llm, project: [p1, p2], labels: {env: prod}}}]"
    )
    budget = load_budgets(path).budgets[0]
    assert (budget.scope.team, budget.scope.project, budget.amount) == (
        ["llm"],
        ["p1", "p2"],
        D("5.5"),
    )
    # The team is the billing rows' team label on the billing basis (docs/glossary.md).
    assert budget.scope.describe() == "label team=llm; project=p1,p2; label env=prod"
    with pytest.raises(BudgetConfigError, match="budgets file does not exist"):
        load_budgets(tmp_path / "missing.yaml")


def test_demo_budgets_are_valid_and_scaled(tmp_path):
    # llm 300/day for 10 days: 3000 spent; its month budget 3000 / 0.85 = 3529.41 -> 3530 (rounded up)
    path = write_demo_budgets(
        tmp_path, {"llm": D(300), "vision": D(100)}, start=date(2026, 10, 1), days=10
    )
    budgets = {b.name: b for b in load_budgets(path).budgets}
    assert budgets["llm-monthly"].amount == D(3530)
    assert budgets["vision-monthly"].amount == D(4650)  # 100 x 31 x 1.5
    assert budgets["fleet-weekly"].amount == D(2520)  # 400 x 7 x 0.9
