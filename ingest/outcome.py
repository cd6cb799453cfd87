"""What one `run_pipeline` (pipelines/runner.py) found: what was materialised, what failed,
every check's result.

Plain data: the CLI renders it (cli/run_report.py), tests read it. It lives here, below both
pipelines/ and cli/, so that neither imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flopledger.settings import Config


@dataclass
class CheckResult:
    asset: str
    name: str
    passed: bool
    severity: str
    description: str


@dataclass
class RunOutcome:
    config: Config
    materialized: dict[str, dict[str, Any]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    snapshot: str | None = None
    # Steps stopped by a failed blocking check, and the steps downstream that did not run: the
    # marts they build keep the previous run's contents.
    blocked: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    # One line per closed month the run changed (reports/closed_months.py), what changed in it.
    closed_months: list[str] = field(default_factory=list)
    # Why the run built no marts at all (a telemetry tick between marts ticks), or None.
    marts_left: str | None = None

    @property
    def succeeded(self) -> bool:
        return not self.failures

    @property
    def marts_not_rebuilt(self) -> str | None:
        """One line saying the marts were not all rebuilt, or None when they were."""
        # The snapshot withheld alone is said by its own line (readers keep the last good one).
        skipped = [s for s in self.skipped if s != "warehouse_snapshot"]
        if not skipped:
            return None
        why = ", ".join(f"{b} (a blocking check)" for b in self.blocked) or "an upstream step"
        return (
            f"marts not rebuilt: {why} failed; {len(skipped)} step(s) not run "
            f"({', '.join(skipped[:5])}{', ...' if len(skipped) > 5 else ''}); "
            "figures below are from the previous run"
        )

    @property
    def failed_error_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed and c.severity == "ERROR"]
