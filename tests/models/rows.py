"""Hand-written rows of the raw tables (models/raw/*.sql), the way the collectors load them.

Only what a scenario is about is passed; everything else gets the collectors' usual value
(USD at rate 1, project ml-prod, VM vm-1, regular cost). Money is Decimal, times are naive
UTC. Nothing here calls flopledger code: the derived columns a collector would fill in
(`usage_day`, `accelerator_type`, `accelerator_seconds`, `cost_usd`) are written by hand; the
SKU's classification (`pricing_model`, `sku_kind` and the columns beside it) is left null, as in
a warehouse loaded before those columns existed, and Books fills it from the rules.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

GPU = "Nvidia H100 80GB GPU running in Americas"
CORE = "A3 Instance Core running in Americas"
TPU = "TpuV5p chip running in Americas"


def ts(text: str | None) -> datetime | None:
    """'2026-10-01T00:30:00Z' or '2026-10-01 00' (an hour) as a naive UTC datetime."""
    if text is None:
        return None
    if len(text) == 13:  # "YYYY-MM-DD HH"
        text += ":00:00"
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)


def _next_hour(hour: str) -> str:
    day, hh = hour.rsplit(" ", 1)
    return f"{day} {int(hh) + 1:02d}" if int(hh) < 23 else hour  # scenarios stay inside a day


def line_item(
    *,
    sku: str,
    cost: Any,
    hour: str = "2026-10-01 00",
    end_hour: str | None = None,
    resource: str | None = "vm-1",
    project: str = "ml-prod",
    credits: tuple[Any, ...] = (),
    typed_credits: tuple[tuple[Any, str, str], ...] = (),
    labels: dict[str, str] | None = None,
    accelerator_type: str | None = None,
    accelerator_seconds: Any = None,
    usage_amount: Any = None,
    usage_unit: str | None = None,
    currency: str = "USD",
    rate: Any = 1,
    cost_usd: Any = None,
    credits_usd: Any = None,
    cost_type: str = "regular",
    service: str = "Compute Engine",
    region: str | None = "us-central1",
    system_labels: dict[str, str] | None = None,
    export_time: str = "2026-10-01 04",
    invoice_month: str = "202610",
) -> dict[str, Any]:
    """One `billing_line_items` row (the table's row_id is given when the books are built).

    Money in another currency than USD needs its USD amounts worked by hand (`cost_usd`,
    `credits_usd`): this helper never converts. `typed_credits` are (amount, type, id) credits
    as the export writes them (e.g. a COMMITTED_USAGE_DISCOUNT whose id names a commitment);
    they count in credits_total like `credits`."""
    amounts = [*credits, *(amount for amount, _, _ in typed_credits)]
    credits_total = sum((Decimal(str(c)) for c in amounts), Decimal(0))
    credit_records = [
        {"name": kind, "amount": Decimal(str(amount)), "full_name": None, "id": name, "type": kind}
        for amount, kind, name in typed_credits
    ]
    if currency != "USD" and cost_usd is None:
        raise ValueError("a row in another currency needs cost_usd (and credits_usd) by hand")
    start = ts(hour)
    assert start is not None
    usd = Decimal(str(cost)) if cost_usd is None else Decimal(str(cost_usd))
    return {
        "usage_day": start.date(),
        "usage_start": start,
        "usage_end": ts(end_hour or _next_hour(hour)),
        "export_time": ts(export_time),
        "provider": "gcp",
        "billing_account_id": "01ABCD-234567-89EF01",
        "project_id": project,
        "service_name": service,
        "sku_description": sku,
        "resource_name": resource,
        "usage_amount": None if usage_amount is None else Decimal(str(usage_amount)),
        "usage_unit": usage_unit,
        "region": region,
        "cost": Decimal(str(cost)),
        "credits_total": credits_total,
        "credits": credit_records or None,
        "cost_at_list": Decimal(str(cost)),
        "currency": currency,
        "currency_conversion_rate": Decimal(str(rate)),
        "cost_usd": usd,
        "credits_total_usd": credits_total if credits_usd is None else Decimal(str(credits_usd)),
        "cost_at_list_usd": usd,
        "cost_type": cost_type,
        "invoice_month": invoice_month,
        "labels": labels or {},
        "system_labels": system_labels or {},
        "accelerator_type": accelerator_type,
        "accelerator_seconds": (
            None if accelerator_seconds is None else Decimal(str(accelerator_seconds))
        ),
    }


def gpu(hour: str, cost: Any, resource: str = "vm-1", seconds: int = 28800, **kw: Any):
    """An H100 row: `seconds` GPU-seconds paid (28,800 = 8 GPUs x 3,600 s)."""
    return line_item(sku=GPU, hour=hour, cost=cost, resource=resource,
                     accelerator_type="H100-80GB", accelerator_seconds=seconds,
                     usage_amount=seconds, usage_unit="seconds", **kw)  # fmt: skip


def host(hour: str, cost: Any, resource: str = "vm-1", **kw: Any) -> dict[str, Any]:
    """The VM's cores around its GPUs: no accelerator, so it is host cost."""
    return line_item(sku=CORE, hour=hour, cost=cost, resource=resource,
                     usage_amount=748800, usage_unit="seconds", **kw)  # fmt: skip


def tpu(hour: str, cost: Any, resource: str, chip_seconds: int = 57600, **kw: Any):
    """A v5p row: `chip_seconds` paid (57,600 = 16 chips x 3,600 s)."""
    return line_item(sku=TPU, hour=hour, cost=cost, resource=resource,
                     accelerator_type="TPU-v5p", accelerator_seconds=chip_seconds,
                     usage_amount=chip_seconds, usage_unit="seconds", **kw)  # fmt: skip


def run(
    run_id: str,
    start: str | None = "2026-10-01T00:00:00Z",
    end: str | None = "2026-10-01T01:00:00Z",
    gpus: int = 8,
    resource: str = "vm-1",
    **fields: Any,
) -> dict[str, Any]:
    """One `jobs` row holding `gpus` of `resource` from start to end; `placements` may list
    several (resource_name, accelerators, optional project_id, start, end)."""
    record: dict[str, Any] = {
        "run_id": run_id,
        "job_id": run_id.rsplit("-", 1)[0],
        "attempt": 1,
        "team": "llm",
        "project_id": "ml-prod",
        "workload_class": "pretraining",
        "experiment_id": "exp-1",
        "model_name": "llama-8b",
        "model_params": 8_000_000_000,
        "submitted_at": start,
        "started_at": start,
        "ended_at": end,
        "status": "succeeded",
        "accelerator_type": "H100-80GB",
        "accelerator_count": gpus,
        "tokens_in": 1_000_000,
        "tokens_out": 0,
        "labels": {},
        "scheduler": "jobs_file",
        "placements": [{"resource_name": resource, "accelerators": gpus}],
    }
    record.update(fields)
    for key in ("submitted_at", "started_at", "ended_at"):
        record[key] = ts(record[key])
    return record


def split_runs(runs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`jobs` rows and `job_placements` rows. A placement's project and window default to its
    run's (as models/raw/job_placements.sql documents)."""
    jobs, placements = [], []
    for record in runs:
        job = {k: v for k, v in record.items() if k != "placements"}
        job["submitted_day"] = job["submitted_at"].date() if job["submitted_at"] else None
        jobs.append(job)
        for i, held in enumerate(record["placements"]):
            placements.append(
                {
                    "placement_id": f"{job['run_id']}/{i}",
                    "run_id": job["run_id"],
                    "project_id": held.get("project_id", job["project_id"]),
                    "resource_name": held["resource_name"],
                    "accelerators": held["accelerators"],
                    "share_numerator": held.get("share_numerator"),
                    "share_denominator": held.get("share_denominator"),
                    "start_at": ts(held.get("start")) or job["started_at"],
                    "end_at": ts(held.get("end")) or job["ended_at"],
                    "submitted_day": job["submitted_day"],
                }
            )
    return jobs, placements
