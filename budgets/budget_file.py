"""`budgets.yaml`: budgets, alert rules and notification channels, validated on load.

Every problem is refused with one line naming the file and the key, like `flopledger.yaml`.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from flopledger.figures.forecast import DEFAULT_WINDOW_DAYS
from flopledger.settings import ConfigError

STALE_SOURCES = ("gcp_billing", "jobs", "nvml_spool", "cloud_monitoring", "probes")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class BudgetConfigError(ConfigError):
    """A problem in budgets.yaml, said in one line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _as_list(value: object) -> object:
    return [value] if isinstance(value, str) else value


class Scope(_Strict):
    """What a budget or rule measures; every field given must match (an empty scope is everything)."""

    team: list[str] | None = None
    project: list[str] | None = None
    workload_class: list[str] | None = None
    accelerator_type: list[str] | None = None
    labels: dict[str, str] = Field(default_factory=dict)

    _lists = field_validator(
        "team", "project", "workload_class", "accelerator_type", mode="before"
    )(_as_list)

    @property
    def basis(self) -> str:
        """billing (billing rows) unless the scope names a workload class (cost allocated to runs)."""
        return "allocated" if self.workload_class else "billing"

    def describe(self) -> str:
        """The scope in words. Its team says which team (docs/glossary.md): the billing rows'
        team label on the billing basis, the runs' owner on the allocated basis."""
        which = {"team": "run-owner team" if self.basis == "allocated" else "label team"}
        fields = self.model_dump(exclude={"labels"}).items()
        parts = [f"{which.get(k, k)}={','.join(v)}" for k, v in fields if v]
        parts += [f"label {k}={v}" for k, v in self.labels.items()]
        return "; ".join(parts) or "everything"


class Budget(_Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    scope: Scope = Field(default_factory=Scope)
    period: Literal["month", "week", "quarter"] = "month"
    week_start: str = "monday"
    amount: Decimal = Field(gt=0, decimal_places=9)
    currency: str = Field(default="USD", pattern=r"^[A-Z]{3}$")
    thresholds: list[float] = Field(default_factory=lambda: [50.0, 80.0, 100.0])
    forecast_alerts: bool = True
    channels: list[str] = Field(default_factory=list)

    @field_validator("week_start")
    @classmethod
    def _weekday(cls, value: str) -> str:
        if value.lower() not in WEEKDAYS:
            raise ValueError(f"must be a weekday name ({', '.join(WEEKDAYS)})")
        return value.lower()

    @field_validator("thresholds")
    @classmethod
    def _thresholds(cls, value: list[float]) -> list[float]:
        if any(t <= 0 for t in value):
            raise ValueError("thresholds are percentages above 0 (e.g. 50, 80, 100)")
        return sorted(set(value))


class Channel(_Strict):
    """A webhook. Its URL is read from the environment variable `url_env`, never from a file."""

    kind: Literal["slack", "json"] = "slack"
    url_env: str = Field(pattern=r"^[A-Z_][A-Z0-9_]*$")


class SpendChangeRule(_Strict):
    """A scope's daily spend above the mean of its baseline window by more than `above_pct`."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    scope: Scope = Field(default_factory=Scope)
    group_by: Literal["team", "project", "accelerator_type"] | None = None
    baseline_days: int = Field(default=7, ge=1)
    above_pct: float = Field(default=50.0, gt=0)
    min_daily_spend: Decimal = Decimal(0)
    channels: list[str] = Field(default_factory=list)


class EfficiencyRule(_Strict):
    """idle_cost_share per project (above a limit) or mean_utilisation_pct per team (below one)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    metric: Literal["idle_cost_share", "mean_utilisation_pct"]
    above: float | None = None
    below: float | None = None
    window_days: int = Field(default=7, ge=1)
    channels: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_limit(self) -> EfficiencyRule:
        if (self.above is None) == (self.below is None):
            raise ValueError("give exactly one of above or below")
        return self


class HealthRules(_Strict):
    """GPU errors, probe ceiling drops and stale sources (each fires once its source has data)."""

    gpu_errors: bool = True
    probe_drop_pct: float | None = Field(default=10.0, gt=0)
    stale_after_hours: dict[str, float] = Field(default_factory=dict)
    lookback_days: int = Field(default=2, ge=1)
    channels: list[str] = Field(default_factory=list)

    @field_validator("stale_after_hours")
    @classmethod
    def _sources(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(STALE_SOURCES))
        if unknown:
            raise ValueError(f"unknown source {unknown[0]!r} (one of {', '.join(STALE_SOURCES)})")
        return value


class Rules(_Strict):
    spend_change: list[SpendChangeRule] = Field(default_factory=list)
    efficiency: list[EfficiencyRule] = Field(default_factory=list)
    health: HealthRules = Field(default_factory=HealthRules)


class BudgetsFile(_Strict):
    forecast_window_days: int = Field(default=DEFAULT_WINDOW_DAYS, ge=1)
    channels: dict[str, Channel] = Field(default_factory=dict)
    run_failure_channels: list[str] | None = None
    budgets: list[Budget] = Field(default_factory=list)
    rules: Rules = Field(default_factory=Rules)

    @model_validator(mode="after")
    def _names(self) -> BudgetsFile:
        _unique([b.name for b in self.budgets], "budgets")
        for where, names in self._channel_uses():
            for name in names:
                if name not in self.channels:
                    raise ValueError(
                        f"{where}: unknown channel {name!r} (define it under channels)"
                    )
        return self

    def _channel_uses(self) -> list[tuple[str, list[str]]]:
        uses = [(f"budget {b.name}", b.channels) for b in self.budgets]
        uses += [(f"rule {r.name}", r.channels) for r in self.rules.spend_change]
        uses += [(f"rule {e.name}", e.channels) for e in self.rules.efficiency]
        uses += [
            ("rules.health", self.rules.health.channels),
            ("run_failure_channels", self.run_failure_channels or []),
        ]
        return uses

    def failure_channels(self) -> list[str]:
        """Where a failed run is reported: `run_failure_channels`, else every channel."""
        return (
            list(self.channels) if self.run_failure_channels is None else self.run_failure_channels
        )


def _unique(names: list[str], key: str) -> None:
    seen = {n for n in names if names.count(n) > 1}
    if seen:
        raise ValueError(f"{key}: duplicate name {sorted(seen)[0]!r}")


def _error_line(path: Path, err: ValidationError) -> str:
    """The first problem (an unknown key first), in one line; channel values are never echoed."""
    errors = err.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        hint = (
            " (put the URL in an environment variable and name it with url_env)"
            if key.endswith(".url")
            else ""
        )
        return f"{path}: {key}: unknown key{hint}"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] in ("value_error", "assertion_error") or key.startswith("channels"):
        return f"{path}: {key}: {message}"
    return f"{path}: {key}: {message} (got {first.get('input')!r})"


def parse_budgets(data: object, origin: str | Path = "budgets.yaml") -> BudgetsFile:
    if data is None:
        return BudgetsFile()
    if not isinstance(data, dict):
        raise BudgetConfigError(f"{origin}: expected a mapping of keys at the top level")
    try:
        return BudgetsFile.model_validate(data)
    except ValidationError as exc:
        raise BudgetConfigError(_error_line(Path(origin), exc)) from None


def load_budgets(path: str | Path | None) -> BudgetsFile:
    """Read and validate budgets.yaml; no file configured means no budgets (default health rules)."""
    if path is None:
        return BudgetsFile()
    path = Path(path)
    if not path.is_file():
        raise BudgetConfigError(f"{path}: budgets file does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise BudgetConfigError(f"{path}: not valid YAML ({exc.__class__.__name__})") from exc
    return parse_budgets(data, path)
