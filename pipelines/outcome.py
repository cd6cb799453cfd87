"""What one `run_pipeline` found: what was materialised, what failed, every check's result.

Plain data: the CLI renders it (cli/run_report.py), tests read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from settings import Config


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

    @property
    def succeeded(self) -> bool:
        return not self.failures

    @property
    def failed_error_checks(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.passed and c.severity == "ERROR"]
