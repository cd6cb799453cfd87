"""The month-close report under Dagster: one asset (logic in reports/), its job, and a daily
schedule that writes the latest closed month once `month_report.settle_days` have passed after
its end, and a revision when late rows changed it since. It reads the published snapshot (the
books that passed their blocking checks), as the CLI does. Writing raises a `month_report` alert
(alerts table) that the alert_notifier sensor delivers, with the page's link."""

from datetime import datetime
from typing import Any

import dagster as dg

from flopledger.budgets.alerts import store_alerts
from flopledger.budgets.budget_file import load_budgets
from flopledger.collectors.timeparse import naive_utc
from flopledger.pipelines.asset_jobs import WRITER_TAGS
from flopledger.pipelines.marts.snapshot import SNAPSHOT_ASSET
from flopledger.pipelines.resources import Flopledger
from flopledger.pipelines.run_tags import NOW_TAG, run_now
from flopledger.reports.month import (
    closes_at,
    months_to_write,
    parse_month,
    read_month,
    report_alert,
    write_month,
)
from flopledger.settings import SchedulesConfig
from flopledger.warehouse import NoWarehouse

MONTH_REPORT_JOB = "month_close"  # not "month_report": Dagster wants job and asset names apart
MONTH_TAG = "flopledger/month"  # YYYY-MM: the month to report (else the latest closed one)


@dg.asset(
    name="month_report",
    group_name="reports",
    deps=[
        "team_chargeback",
        "spend_monthly",
        "cost_explorer_rows",
        "budget_status",
        "alerts",
        SNAPSHOT_ASSET,
    ],
    description="The month-close report (CSV files and one HTML page) of the latest closed "
    "invoice month, or its revision after late rows (reports/month.py), read from the published "
    "snapshot.",
)
def month_report_asset(
    context: dg.AssetExecutionContext, flopledger: Flopledger
) -> dg.MaterializeResult:
    config = flopledger.config()
    now = run_now(context, flopledger)
    tag = context.run.tags.get(MONTH_TAG)
    settings = config.month_report
    months = [parse_month(tag)] if tag else months_to_write(settings.out, now, settings.settle_days)
    warehouse = flopledger.warehouse()
    channels = list(load_budgets(config.budgets).channels)
    outcome: dict[str, str] = {}
    for month in months:
        closes = closes_at(month, settings.settle_days)
        if now < closes:
            # a tag naming an open month: a report now would be "revised" by the real one
            outcome[f"{month:%Y-%m}"] = (
                f"not closed until {closes:%Y-%m-%d %H:%M} UTC, nothing written"
            )
            continue
        try:
            # The published snapshot, as `flopledger report month` reads: the books that passed
            # their blocking checks, never a run's unchecked tables.
            report = read_month(lambda sql, p: warehouse.read_query(sql, p).to_pylist(), month)
        except NoWarehouse as exc:
            outcome[f"{month:%Y-%m}"] = f"nothing written: {exc}"
            context.log.warning(outcome[f"{month:%Y-%m}"])
            continue
        if not report.invoice and not report.chargeback:
            outcome[report.key] = "no billing rows, nothing written"
            continue
        written = write_month(report, settings.out, now)
        alert = report_alert(report, written, settings.link_base, channels)
        if alert is not None:
            store_alerts(warehouse, [alert], now)
        outcome[report.key] = f"{written.status} (revision {written.revision}): {written.page}"
        context.log.info(f"{report.key}: {outcome[report.key]}")
    return dg.MaterializeResult(
        metadata={key: dg.MetadataValue.text(text) for key, text in outcome.items()}
    )


def month_report_job() -> Any:  # an unresolved asset job
    return dg.define_asset_job(
        MONTH_REPORT_JOB,
        selection=dg.AssetSelection.assets("month_report"),
        executor_def=dg.in_process_executor,
        tags=WRITER_TAGS,
    )


def build_schedule(crons: SchedulesConfig) -> dg.ScheduleDefinition:
    @dg.schedule(
        name="month_report_daily",
        job_name=MONTH_REPORT_JOB,
        cron_schedule=crons.month_report,
        execution_timezone="UTC",
        default_status=dg.DefaultScheduleStatus.RUNNING,
    )
    def month_report_daily(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        # Daily: the first run after the settle days writes the month; later runs write a
        # revision only when late rows changed its totals (write_month compares the manifest).
        now: datetime = naive_utc(context.scheduled_execution_time)
        return dg.RunRequest(
            run_key=f"month-report-{now:%Y-%m-%d}", tags={NOW_TAG: now.isoformat()}
        )

    return month_report_daily


def build(crons: SchedulesConfig) -> dg.Definitions:
    return dg.Definitions(
        assets=[month_report_asset], jobs=[month_report_job()], schedules=[build_schedule(crons)]
    )
