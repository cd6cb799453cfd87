"""The UTC days the inputs hold, per source: what `flopledger run` materialises."""

from __future__ import annotations

from datetime import date

from collectors.gcp_billing.days import usage_days
from collectors.jobs.read import read_jobs_files
from pipelines.config import Config


def _billing(config: Config) -> set[date]:
    return usage_days(config.source_files("gcp_billing"))


def _jobs(config: Config) -> set[date]:
    jobs = read_jobs_files(config.source_files("jobs")).jobs
    return {d for d in jobs["submitted_day"].to_pylist() if d is not None}


DAY_FINDERS = {"gcp_billing": _billing, "jobs": _jobs}


def input_days(config: Config) -> set[date]:
    days: set[date] = set()
    for name, finder in DAY_FINDERS.items():
        if getattr(config.sources, name) is not None:
            days |= finder(config)
    return days
