"""An AWS GPU segment (opt-in: `flopledger simulate --aws-gpus N`), billed as FOCUS 1.2.

ceil(N / 8) EC2 instances in one linked account (us-east-1): p5.48xlarge (8 x H100 80GB),
every third a p4d.24xlarge (8 x A100 40GB); instance 1 (and every fourth after it) lives only
part of the period, launched and terminated at a multiple of 36 seconds (Linux is billed per
second; 36 s is 0.01 h, so its hours' ConsumedQuantity is exact). Each instance has a gp3
volume billed in one row a day. Runs are scheduled on the instances as on GCP VMs (placements
name the instance id, `project_id` the AWS account) and written into the same jobs file; run
ids are `aws-NNNNNN`.

The bill is what AWS Data Exports writes for a FOCUS 1.2 export: one Parquet file per billing
period under `aws-focus/data/BILLING_PERIOD=YYYY-MM/`, hourly rows, FOCUS columns plus AWS's
`x_` columns. A Compute Savings Plan (CommitmentDiscountCategory Spend) commits COMMITMENT_USD
per hour; every hour:
- a Purchase row (ChargeFrequency Recurring, PricingCategory Committed, ResourceId the plan's
  ARN): BilledCost = the hourly commitment, EffectiveCost 0 (AWS amortises it into usage);
- the plan covers instance-hours in instance order at the plan's rate until the commitment is
  spent: covered usage is a Usage row (PricingCategory Committed, CommitmentDiscountStatus
  Used), BilledCost 0, EffectiveCost = quantity x plan rate; the part of an instance-hour the
  plan does not cover is a second, on-demand row (PricingCategory Standard);
- what the hour left of the commitment is a Usage row with CommitmentDiscountStatus Unused
  (ResourceId the plan's ARN), BilledCost 0, EffectiveCost = the unused amount.
So per hour BilledCost and EffectiveCost add up to the same total (commitment + on-demand).

Truth (simulator/truth.py's arithmetic): an instance-hour's covered and on-demand rows pool on
(account, instance id, hour) with paid accelerator-seconds = ConsumedQuantity x 3600 x 8; a
volume's daily row is spread over its 24 hours by the same floors of running sums; the
unused row is unused commitment; the Purchase row's EffectiveCost (0) goes nowhere.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from flopledger.accelerators import accelerator
from flopledger.simulator.clock import DAY_US, HOUR_US, US, hour_overlaps, to_datetime, to_naive
from flopledger.simulator.fleet import Account, Fleet, MachineType, Project, Vm
from flopledger.simulator.schedule import Run, build_schedule
from flopledger.simulator.truth import Truth, nanos_text, spread

PROVIDER = "AWS"
PAYER = Account("109876543210", "USD", Decimal(1))  # BillingAccountId: the management account
ACCOUNT = Project("210987654321", "210987654321", PAYER, "llm")  # SubAccountId: linked account
ACCOUNT_NAME = "acme-ml-aws"
REGION, REGION_NAME, ZONE = "us-east-1", "US East (N. Virginia)", "us-east-1a"
PUBLISHER = "Amazon Web Services, Inc."
PLAN_ARN = "arn:aws:savingsplans::109876543210:savingsplan/2f6e1a44-0c3b-4c7e-9d2a-5b8e7f3a1c90"
NINE = Decimal("1e-9")


class Ec2Type:
    """An EC2 GPU instance type: its machine (GPUs), on-demand and Savings Plan hourly rates."""

    def __init__(self, machine: MachineType, on_demand: str, plan: str, sku: str) -> None:
        self.machine = machine
        self.on_demand = Decimal(on_demand)  # USD per instance-hour (us-east-1, Linux)
        self.plan = Decimal(plan)  # Compute Savings Plan, 1 year, no upfront
        self.sku = sku


P5 = Ec2Type(
    MachineType("p5.48xlarge", "p5", "", "", "", 8, 192, 2048, accelerator("H100-80GB")),
    "55.04",
    "38.40",
    "7QAJ8C7RXPSJ9GQ4",
)
P4D = Ec2Type(
    MachineType("p4d.24xlarge", "p4d", "", "", "", 8, 96, 1152, accelerator("A100-40GB")),
    "21.96",
    "15.37",
    "JX3SNWBFVJ6VYZGA",
)
VOLUME_GIB = 4096
VOLUME_USD_PER_DAY = Decimal("10.922666667")  # 4,096 GiB x 0.08 USD per GiB-month / 30 days


@dataclass(frozen=True)
class Instance:
    vm: Vm  # name = the instance id; project = the linked account
    ec2: Ec2Type
    volume_id: str


@dataclass
class AwsSegment:
    instances: list[Instance]
    runs: list[Run]
    commitment_usd: Decimal  # the plan's hourly commitment
    start_us: int
    end_us: int


def _hex(text: str, n: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def _window(index: int, start_us: int, end_us: int) -> tuple[int, int]:
    """Instance 1, 5, 9 ... live from 3 h 12 min 36 s into the period to 14 h 24 min before its end."""
    if index % 4 != 1 or end_us - start_us < 2 * DAY_US:
        return start_us, end_us
    return start_us + 3 * HOUR_US + 756 * US, end_us - 14 * HOUR_US - 1440 * US


def _instance(index: int, start_us: int, end_us: int) -> Instance:
    ec2 = P4D if index % 3 == 2 else P5
    created, deleted = _window(index, start_us, end_us)
    vm = Vm(
        index=20_000 + index,
        name=f"i-0{_hex(f'aws-instance:{index}', 16)}",
        machine=ec2.machine,
        project=ACCOUNT,
        zone=ZONE,
        team=ACCOUNT.team,
        created_us=created,
        deleted_us=deleted,
        committed_use=False,
        slurm=False,
        disk_gib=VOLUME_GIB,
    )
    return Instance(vm, ec2, f"vol-0{_hex(f'aws-volume:{index}', 16)}")


def build_aws(gpus: int, start_us: int, end_us: int, seed: int) -> AwsSegment:
    """The instances of ceil(gpus / 8) and the runs scheduled on them."""
    instances = [_instance(i, start_us, end_us) for i in range(-(-gpus // 8))]
    sub = Fleet(start_us, end_us, [i.vm for i in instances])
    runs = [_renamed(r) for r in build_schedule(sub, seed * 7919 + 18)]
    segment = AwsSegment(instances, runs, Decimal(0), start_us, end_us)
    steady = [i for i in instances if (i.vm.created_us, i.vm.deleted_us) == (start_us, end_us)]
    part = [i for i in instances if i not in steady]
    segment.commitment_usd = sum((i.ec2.plan for i in steady), Decimal(0)) + (
        part[0].ec2.plan / 2 if part else Decimal(0)
    )
    return segment


def _renamed(run: Run) -> Run:
    number = run.run_id.rsplit("-", 1)[-1]
    return replace(run, run_id=f"aws-{number}", job_id=f"aws-{run.job_id}")


def _month_bounds(us: int) -> tuple[datetime, datetime]:
    moment = to_datetime(us)
    first = datetime(moment.year, moment.month, 1, tzinfo=UTC)
    nxt = datetime(moment.year + moment.month // 12, moment.month % 12 + 1, 1, tzinfo=UTC)
    return first, nxt


def _base(start_us: int, end_us: int) -> dict[str, Any]:
    """What every row of the export carries."""
    period_start, period_end = _month_bounds(start_us)
    return {
        "BillingAccountId": PAYER.account_id,
        "BillingAccountName": "acme-payer",
        "BillingAccountType": "Billing Account",
        "BillingCurrency": "USD",
        "BillingPeriodStart": period_start,
        "BillingPeriodEnd": period_end,
        "ChargePeriodStart": to_datetime(start_us),
        "ChargePeriodEnd": to_datetime(end_us),
        "InvoiceIssuerName": PUBLISHER,
        "PricingCurrency": "USD",
        "ProviderName": PROVIDER,
        "PublisherName": PUBLISHER,
        "RegionId": REGION,
        "RegionName": REGION_NAME,
        "SubAccountId": ACCOUNT.project_id,
        "SubAccountName": ACCOUNT_NAME,
        "SubAccountType": "Linked Account",
        "x_CostCategories": [],
        "x_Discounts": [],
    }


def _plan_fields(status: str | None, quantity: Decimal | None) -> dict[str, Any]:
    return {
        "CommitmentDiscountCategory": "Spend",
        "CommitmentDiscountId": PLAN_ARN,
        "CommitmentDiscountName": "ml-compute-1yr",
        "CommitmentDiscountType": "Savings Plan",  # as AWS writes it (the public sample)
        "CommitmentDiscountStatus": status,
        "CommitmentDiscountQuantity": quantity,
        "CommitmentDiscountUnit": "USD" if quantity is not None else None,
    }


def _instance_row(
    inst: Instance, hour_us: int, qty: Decimal, covered: bool, cost: Decimal
) -> dict[str, Any]:
    """One instance-hour row: covered by the plan (BilledCost 0) or on demand."""
    ec2, name = inst.ec2, inst.ec2.machine.name
    rate = ec2.plan if covered else ec2.on_demand
    list_cost = (qty * ec2.on_demand).quantize(NINE, ROUND_HALF_EVEN)
    row = _base(hour_us, hour_us + HOUR_US) | {
        "AvailabilityZone": ZONE,
        "BilledCost": Decimal(0) if covered else cost,
        "EffectiveCost": cost,
        "ListCost": list_cost,
        "ListUnitPrice": ec2.on_demand,
        "ContractedCost": list_cost,
        "ContractedUnitPrice": ec2.on_demand,
        "PricingCurrencyContractedUnitPrice": ec2.on_demand,
        "PricingCurrencyEffectiveCost": cost,
        "PricingCurrencyListUnitPrice": ec2.on_demand,
        "ChargeCategory": "Usage",
        "ChargeFrequency": "Usage-Based",
        "ChargeDescription": (
            f"USD {rate} per {'Savings Plan' if covered else 'On Demand'} Linux {name} Instance Hour"
        ),
        "ConsumedQuantity": qty,
        "ConsumedUnit": "Hrs",
        "PricingQuantity": qty,
        "PricingUnit": "Hours",
        "PricingCategory": "Committed" if covered else "Standard",
        "ResourceId": inst.vm.name,
        "ResourceType": "Instance",
        "ServiceCategory": "Compute",
        "ServiceSubcategory": "Virtual Machines",
        "ServiceName": "Amazon Elastic Compute Cloud",
        "SkuId": ec2.sku,
        "SkuMeter": "Compute Instance",
        "SkuPriceId": f"{ec2.sku}.{'SP1YNU' if covered else 'JRTCKXETXF'}.6YS6EN2CT7",
        "Tags": [("team", inst.vm.team or "")],  # plain keys, as the public sample's AWS rows
        "x_Operation": "RunInstances",
        "x_ServiceCode": "AmazonEC2",
        "x_UsageType": f"USE1-BoxUsage:{name}",
    }
    if covered:
        row |= _plan_fields("Used", cost)
    return row


def _plan_row(hour_us: int, purchase: bool, amount: Decimal) -> dict[str, Any]:
    """The hour's recurring fee (Purchase) or what it left unused (Usage, Unused)."""
    row = _base(hour_us, hour_us + HOUR_US) | {
        "BilledCost": amount if purchase else Decimal(0),
        "EffectiveCost": Decimal(0) if purchase else amount,
        "ListCost": Decimal(0),
        "ContractedCost": Decimal(0),
        "PricingCurrencyEffectiveCost": Decimal(0) if purchase else amount,
        "ChargeCategory": "Purchase" if purchase else "Usage",
        "ChargeFrequency": "Recurring" if purchase else "Usage-Based",
        "ChargeDescription": "1 year No Upfront Compute Savings Plan"
        if purchase
        else "Unused Compute Savings Plan commitment",
        "PricingCategory": "Committed",
        "PricingQuantity": amount if purchase else None,
        "PricingUnit": "USD" if purchase else None,
        "ResourceId": PLAN_ARN,
        "ResourceType": "Savings Plan",
        "ServiceCategory": "Compute",
        "ServiceSubcategory": "Virtual Machines",
        "ServiceName": "Savings Plans for AWS Compute usage",
        "SkuId": "SP1YNUCOMPUTE",
        "x_Operation": "SavingsPlanRecurringFee" if purchase else "SavingsPlanNegation",
        "x_ServiceCode": "ComputeSavingsPlans",
        "x_UsageType": "ComputeSP:1yrNoUpfront",
    }
    return row | _plan_fields(None if purchase else "Unused", None if purchase else amount)


def _volume_row(inst: Instance, day_us: int) -> dict[str, Any]:
    """A gp3 volume's day: one daily row (its cost is spread over the day's hours)."""
    return _base(day_us, day_us + DAY_US) | {
        "AvailabilityZone": ZONE,
        "BilledCost": VOLUME_USD_PER_DAY,
        "EffectiveCost": VOLUME_USD_PER_DAY,
        "ListCost": VOLUME_USD_PER_DAY,
        "ContractedCost": VOLUME_USD_PER_DAY,
        "PricingCurrencyEffectiveCost": VOLUME_USD_PER_DAY,
        "ChargeCategory": "Usage",
        "ChargeFrequency": "Usage-Based",
        "ChargeDescription": "USD 0.08 per GB-month of General Purpose (gp3) provisioned storage",
        "ConsumedQuantity": (Decimal(VOLUME_GIB) / 30).quantize(NINE),
        "ConsumedUnit": "GB-Mo",
        "PricingCategory": "Standard",
        "ResourceId": inst.volume_id,
        "ResourceType": "Volume",
        "ServiceCategory": "Storage",
        "ServiceSubcategory": "Block Storage",
        "ServiceName": "Amazon Elastic Compute Cloud",
        "SkuId": "HY3BZPP2B6K8MSJF",
        "Tags": [("team", inst.vm.team or "")],  # plain keys, as the public sample's AWS rows
        "x_Operation": "CreateVolume-Gp3",
        "x_ServiceCode": "AmazonEC2",
        "x_UsageType": "USE1-EBS:VolumeUsage.gp3",
    }


def _nanos(amount: Decimal) -> int:
    return int(amount.scaleb(9))


class _Hours:
    """The bill's rows and the truth they imply (pool, paid, unused, per-provider totals)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.pool_e: dict[tuple[str, str, int], int] = defaultdict(int)
        self.pool_p: dict[tuple[str, str, int], int] = defaultdict(int)
        self.unused: dict[int, int] = {}

    def instance_hour(self, seg: AwsSegment, hour_us: int, left: Decimal) -> Decimal:
        """Each live instance's hour, covered by what is `left` of the plan first; returns the rest."""
        for inst in seg.instances:
            overlap = min(inst.vm.deleted_us, hour_us + HOUR_US) - max(inst.vm.created_us, hour_us)
            if overlap <= 0:
                continue
            qty = Decimal(overlap) / Decimal(HOUR_US)
            covered = min(qty, (left / inst.ec2.plan).quantize(NINE, ROUND_DOWN))
            key = (ACCOUNT.project_id, inst.vm.name, hour_us)
            self.pool_p[key] += _nanos(qty * 3600 * inst.ec2.machine.gpus)
            if covered > 0:
                cost = (covered * inst.ec2.plan).quantize(NINE, ROUND_HALF_EVEN)
                left -= cost
                self.rows.append(_instance_row(inst, hour_us, covered, True, cost))
                self.pool_e[key] += _nanos(cost)
            if qty > covered:
                cost = ((qty - covered) * inst.ec2.on_demand).quantize(NINE, ROUND_HALF_EVEN)
                self.rows.append(_instance_row(inst, hour_us, qty - covered, False, cost))
                self.pool_e[key] += _nanos(cost)
        return left


def bill(seg: AwsSegment, start_us: int, end_us: int) -> _Hours:
    """Every row of the period and its truth."""
    out = _Hours()
    for hour_us in range(start_us, end_us, HOUR_US):
        out.rows.append(_plan_row(hour_us, True, seg.commitment_usd))
        left = out.instance_hour(seg, hour_us, seg.commitment_usd)
        if left > 0:
            out.rows.append(_plan_row(hour_us, False, left))
        out.unused[hour_us] = _nanos(left)
    for day_us in range(start_us, end_us, DAY_US):
        for inst in seg.instances:
            out.rows.append(_volume_row(inst, day_us))
            hours = hour_overlaps(day_us, day_us + DAY_US)
            for (hour, _), e in zip(
                hours, spread(_nanos(VOLUME_USD_PER_DAY), [o for _, o in hours]), strict=True
            ):
                out.pool_e[(ACCOUNT.project_id, inst.volume_id, hour)] += e
    return out


def _schema() -> pa.Schema:
    from flopledger.collectors.focus.read import COLUMNS

    kinds = {
        "money": pa.decimal128(38, 12),
        "quantity": pa.decimal128(38, 15),
        "time": pa.timestamp("ms", tz="UTC"),
    }
    tags = pa.map_(pa.string(), pa.string())
    fields = [
        pa.field(name, tags if name == "Tags" else kinds.get(kind, pa.string()))
        for name, (kind, _) in COLUMNS.items()
    ]
    fields += [
        pa.field("x_CostCategories", tags),
        pa.field("x_Discounts", tags),
        pa.field("x_Operation", pa.string()),
        pa.field("x_ServiceCode", pa.string()),
        pa.field("x_UsageType", pa.string()),
    ]
    return pa.schema(fields)


def write_focus(directory: Path, rows: list[dict[str, Any]]) -> list[Path]:
    """One Parquet file per billing period, as Data Exports lays out a FOCUS 1.2 export."""
    schema = _schema()
    by_period: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_period[f"{row['BillingPeriodStart']:%Y-%m}"].append(row)
    written = []
    for period, period_rows in sorted(by_period.items()):
        path = directory / "data" / f"BILLING_PERIOD={period}" / "aws-focus-00001.snappy.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pylist(period_rows, schema=schema)
        pq.write_table(table, path, compression="snappy")
        written.append(path)
    return written


def totals(hours: _Hours) -> dict[str, str]:
    """The provider's bill: billed and effective sums of the rows written, and unused."""
    billed = sum(_nanos(r["BilledCost"]) for r in hours.rows)
    effective = sum(_nanos(r["EffectiveCost"]) for r in hours.rows)
    return {
        "billed_usd": nanos_text(billed),
        "effective_usd": nanos_text(effective),
        "unused_commitment_usd": nanos_text(sum(hours.unused.values())),
        "rows": str(len(hours.rows)),
    }


def write_aws(directory: Path, seg: AwsSegment, truth: Truth) -> int:
    """The FOCUS dataset under `directory`; its truth into `truth`, the instances (ids, types,
    lifetimes) and the plan's commitment in `truth/aws_segment.json` beside it. Returns the
    rows written."""
    hours = bill(seg, seg.start_us, seg.end_us)
    write_focus(directory, hours.rows)
    unused = {(PLAN_ARN, hour): nanos for hour, nanos in hours.unused.items()}
    truth.add_pooled(hours.pool_e, hours.pool_p, unused, {"provider": PROVIDER} | totals(hours))
    manifest = {
        "instances": [
            {
                "instance_id": i.vm.name,
                "instance_type": i.ec2.machine.name,
                "volume_id": i.volume_id,
                "launched": f"{to_naive(i.vm.created_us):%Y-%m-%d %H:%M:%S}",
                "terminated": f"{to_naive(i.vm.deleted_us):%Y-%m-%d %H:%M:%S}",
            }
            for i in seg.instances
        ],
        "account_id": ACCOUNT.project_id,
        "commitment_id": PLAN_ARN,
        "commitment_usd_per_hour": str(seg.commitment_usd),
    }
    path = directory.parent / "truth" / "aws_segment.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return len(hours.rows)
