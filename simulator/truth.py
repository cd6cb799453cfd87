"""Ground truth: what the pipeline must find, computed from the generated rows, not from SQL.

THE ARITHMETIC RULE (money in integer nano-USD; floor is toward minus infinity):
- per row: cost_usd = round_half_even(cost / rate, 9), credits_usd likewise on the sum of the
  row's credits; E_row = (cost_usd + credits_usd) x 1e9.
- a row labelled run_id=<known run> goes wholly to that run; other rows with a resource name
  are spread over the UTC hours [start, end) overlaps: with overlaps o_i in microseconds,
  T = sum o_i and C_i = o_1 + ... + o_i, hour i gets floor(E C_i / T) - floor(E C_(i-1) / T)
  (a zero-length row: all in its start hour). Paid accelerator-seconds of accelerator rows
  are spread the same way, in nano-seconds.
- pool per (project, resource, hour): E = spread effective nanos, P = spread paid nanos;
  H_run = accelerators x overlap of each placement with the hour, in nano-seconds (a MIG slice
  placement: floor(accelerators x numerator x overlap nanos / denominator), per placement-hour).
  D = max(P, sum H); a run gets floor(E H / D) (nothing when D = 0); the rest is unallocated idle.
- a commitment fee row (its SKU is a commitment's) is not pooled: its effective nanos F and its
  usage (committed seconds, in nano-seconds) Q are spread over its hours. A usage row whose
  COMMITTED_USAGE_DISCOUNT credit names the commitment used it with its paid accelerator
  nano-seconds, spread likewise. Per commitment-hour with users u: S = sum u, each user's
  resource-hour (or, for a row labelled with a run, that run) gets floor(F u / max(Q, S)) on
  top of its E; F minus the shares is unused commitment.
- a row whose system label compute.googleapis.com/is_unused_reservation is "true" is not
  pooled: it is unused reservation.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path
from typing import Any

from flopledger.simulator.clock import HOUR_US, hour_overlaps, to_naive
from flopledger.simulator.prices import ACCELERATOR_SKUS, SKUS
from flopledger.simulator.schedule import Run

COMMITMENT_SKU_IDS = frozenset({SKUS["h100_commitment"].sku_id})
UNUSED_LABEL = "compute.googleapis.com/is_unused_reservation"

NANO = Decimal("1e-9")
Key = tuple[str, str, int]  # (project_id, resource_name, hour start in microseconds)
# Who used a commitment in an hour: ("pool", project, resource) or ("direct", run_id, "").
User = tuple[str, str, str]


def to_usd_nanos(amount: Decimal, rate: Decimal) -> int:
    """round_half_even(amount / rate, 9 places) as integer nano-USD."""
    with localcontext() as ctx:
        ctx.prec = 60
        usd = (amount / rate).quantize(NANO, rounding=ROUND_HALF_EVEN)
    return int(usd.scaleb(9))


def spread(amount: int, overlaps_us: list[int]) -> list[int]:
    """`amount` split over parts by weight, floors of running sums so the parts add up exactly.

    A total weight of 0 puts everything in the first part."""
    total = sum(overlaps_us)
    if total == 0:
        return [amount] + [0] * (len(overlaps_us) - 1)
    parts, running, before = [], 0, 0
    for overlap in overlaps_us:
        running += overlap
        now = amount * running // total
        parts.append(now - before)
        before = now
    return parts


def allocate(e_nanos: int, p_nanos: int, held: dict[str, int]) -> dict[str, int]:
    """Each run's floor(E x H / D), D = max(P, sum H); {} when D = 0."""
    d = max(p_nanos, sum(held.values()))
    if d == 0:
        return {}
    return {run_id: e_nanos * h // d for run_id, h in held.items()}


def nanos_text(nanos: int) -> str:
    """Integer nanos as an exact decimal string with 9 places."""
    return str(Decimal(nanos).scaleb(-9).quantize(NANO))


def hour_text(hour_us: int) -> str:
    return f"{to_naive(hour_us):%Y-%m-%d %H:%M:%S}"


def _credits(row: dict[str, Any]) -> Decimal:
    return sum((Decimal(c["amount"]) for c in row["credits"]), Decimal(0))


ACCELERATOR_SKU_IDS = frozenset(SKUS[k].sku_id for k in ACCELERATOR_SKUS)


def paid_nanos(row: dict[str, Any]) -> int:
    """Accelerator nano-seconds an accelerator SKU row says were paid (usage is in seconds); 0 otherwise."""
    if row["sku"]["id"] not in ACCELERATOR_SKU_IDS or row["usage"]["unit"] != "seconds":
        return 0
    return int(Decimal(row["usage"]["amount"]).scaleb(9))


class Truth:
    """Accumulates the truth row by row (each distinct row once), day by day; `write` at the end."""

    def __init__(self, runs: list[Run], run_label_key: str = "run_id") -> None:
        self.runs = {r.run_id: r for r in runs}
        self.label_key = run_label_key
        self.pool_e: dict[Key, int] = defaultdict(int)
        self.pool_p: dict[Key, int] = defaultdict(int)
        self.direct: dict[str, int] = defaultdict(int)
        self.last_hour: dict[tuple[str, str], int] = {}
        self.billed = self.credits = 0
        self.rows = 0
        self.rows_per_account: dict[str, int] = defaultdict(int)
        self.effective_by_team: dict[str, int] = defaultdict(int)
        self.fee_e: dict[tuple[str, int], int] = defaultdict(int)  # (commitment, hour)
        self.fee_q: dict[tuple[str, int], int] = defaultdict(int)
        self.used: dict[tuple[str, int], dict[User, int]] = defaultdict(lambda: defaultdict(int))
        self.unused_reservation = 0
        self.unused_commitment: dict[tuple[str, int], int] = {}
        self.other_unused: dict[tuple[str, int], int] = {}  # other providers' (add_pooled)
        self.providers: dict[str, dict[str, str]] = {}

    def add(self, row: dict[str, Any]) -> None:
        rate = Decimal(row["currency_conversion_rate"])
        cost = to_usd_nanos(Decimal(row["cost"]), rate)
        credits = to_usd_nanos(_credits(row), rate)
        self.billed += cost
        self.credits += credits
        self.rows += 1
        self.rows_per_account[row["billing_account_id"]] += 1
        team = next((item["value"] for item in row["labels"] if item["key"] == "team"), None)
        if team is not None:
            self.effective_by_team[team] += cost + credits
        run_id = next(
            (item["value"] for item in row["labels"] if item["key"] == self.label_key), None
        )
        system = {item["key"]: item["value"] for item in row["system_labels"]}
        if row["sku"]["id"] in COMMITMENT_SKU_IDS:
            self._fee(row, cost + credits)
            return
        if system.get(UNUSED_LABEL) == "true":
            self.unused_reservation += cost + credits
            return
        if run_id in self.runs:
            self.direct[run_id] += cost + credits
            self._used(row, ("direct", run_id, ""))
        elif row["resource"] is not None:
            self._pool(row, cost + credits)
            self._used(row, ("pool", row["project"]["id"], row["resource"]["name"]))

    def add_pooled(
        self,
        pool_e: dict[Key, int],
        pool_p: dict[Key, int],
        unused: dict[tuple[str, int], int],
        provider: dict[str, str],
    ) -> None:
        """Another provider's resource-hours (effective and paid nanos, already per hour), its
        unused commitment per (commitment, hour) and its bill's totals (simulator/aws.py)."""
        for key, nanos in pool_e.items():
            self.pool_e[key] += nanos
            if key[2] > self.last_hour.get((key[0], key[1]), -1):
                self.last_hour[(key[0], key[1])] = key[2]
        for key, nanos in pool_p.items():
            self.pool_p[key] += nanos
        self.other_unused.update(unused)
        self.providers[provider.pop("provider")] = provider

    def _fee(self, row: dict[str, Any], effective: int) -> None:
        hours = hour_overlaps(row["usage_start_time"], row["usage_end_time"])
        weights = [o for _, o in hours]
        committed = int(Decimal(row["usage"]["amount"]).scaleb(9))
        name = row["resource"]["name"]
        for (hour, _), e, q in zip(
            hours, spread(effective, weights), spread(committed, weights), strict=True
        ):
            self.fee_e[(name, hour)] += e
            self.fee_q[(name, hour)] += q

    def _used(self, row: dict[str, Any], user: User) -> None:
        named = {c["id"] for c in row["credits"] if c["type"] == "COMMITTED_USAGE_DISCOUNT"}
        if not named:
            return
        hours = hour_overlaps(row["usage_start_time"], row["usage_end_time"])
        for (hour, _), u in zip(hours, spread(paid_nanos(row), [o for _, o in hours]), strict=True):
            for name in named:
                self.used[(name, hour)][user] += u

    def _share_fees(self) -> None:
        """Each commitment-hour's fee to the users' resource-hours (or runs); the rest unused."""
        for key in sorted(self.fee_e):
            users = {u: n for u, n in self.used.get(key, {}).items() if n}
            d = max(self.fee_q[key], sum(users.values()))
            shares = {u: self.fee_e[key] * n // d for u, n in users.items()} if d else {}
            for (kind, a, b), share in shares.items():
                if kind == "direct":
                    self.direct[a] += share
                else:
                    self.pool_e[(a, b, key[1])] += share
            self.unused_commitment[key] = self.fee_e[key] - sum(shares.values())

    def _pool(self, row: dict[str, Any], effective: int) -> None:
        project, resource = row["project"]["id"], row["resource"]["name"]
        hours = hour_overlaps(row["usage_start_time"], row["usage_end_time"])
        weights = [o for _, o in hours]
        paid = paid_nanos(row)
        for (hour, _), e, p in zip(
            hours, spread(effective, weights), spread(paid, weights), strict=True
        ):
            key = (project, resource, hour)
            self.pool_e[key] += e
            self.pool_p[key] += p
        last = hours[-1][0]
        if last > self.last_hour.get((project, resource), -1):
            self.last_hour[(project, resource)] = last

    def held(self) -> dict[Key, dict[str, int]]:
        """Held accelerator nano-seconds per pool key and run."""
        out: dict[Key, dict[str, int]] = defaultdict(dict)
        for run in self.runs.values():
            for p in run.placements:
                end = p.end_us
                if end is None:
                    last = self.last_hour.get((p.project_id, p.resource_name))
                    end = p.start_us if last is None else max(p.start_us, last + HOUR_US)
                for hour, overlap in hour_overlaps(p.start_us, end):
                    if overlap:
                        cell = out[(p.project_id, p.resource_name, hour)]
                        nanos = (
                            p.accelerators * p.share_numerator * overlap * 1000
                        ) // p.share_denominator
                        cell[run.run_id] = cell.get(run.run_id, 0) + nanos
        return out

    def write(self, directory: Path) -> dict[str, Any]:
        """held.csv, resource_hours.csv, run_costs.csv, commitments.csv and totals.json; returns
        the totals."""
        directory.mkdir(parents=True, exist_ok=True)
        self._share_fees()
        held = self.held()
        allocated: dict[str, int] = defaultdict(int)
        held_total: dict[str, int] = defaultdict(int)
        hours = []
        for key in sorted(set(self.pool_e) | set(held)):
            runs = held.get(key, {})
            shares = allocate(self.pool_e.get(key, 0), self.pool_p.get(key, 0), runs)
            for run_id, nanos in shares.items():
                allocated[run_id] += nanos
            for run_id, h in runs.items():
                held_total[run_id] += h
            hours.append((key, runs, sum(shares.values())))
        _write_held(directory / "held.csv", held)
        self._write_resource_hours(directory / "resource_hours.csv", hours)
        self._write_run_costs(directory / "run_costs.csv", allocated, held_total)
        self._write_commitments(directory / "commitments.csv")
        totals = self.totals()
        (directory / "totals.json").write_text(json.dumps(totals, indent=2, sort_keys=True) + "\n")
        return totals

    def _write_resource_hours(
        self, path: Path, hours: list[tuple[Key, dict[str, int], int]]
    ) -> None:
        header = [
            "project_id",
            "resource_name",
            "hour",
            "paid_accelerator_seconds",
            "held_accelerator_seconds",
            "effective_cost_usd",
            "allocated_cost_usd",
            "unallocated_idle_cost_usd",
        ]
        rows = []
        for key, runs, allocated in hours:
            e = self.pool_e.get(key, 0)
            rows.append(
                [
                    key[0],
                    key[1],
                    hour_text(key[2]),
                    nanos_text(self.pool_p.get(key, 0)),
                    nanos_text(sum(runs.values())),
                    nanos_text(e),
                    nanos_text(allocated),
                    nanos_text(e - allocated),
                ]
            )
        _write_csv(path, header, rows)

    def _write_run_costs(self, path: Path, allocated: dict[str, int], held: dict[str, int]) -> None:
        header = [
            "run_id",
            "held_accelerator_seconds",
            "allocated_cost_usd",
            "direct_cost_usd",
            "effective_cost_usd",
        ]
        rows = [
            [
                run_id,
                nanos_text(held.get(run_id, 0)),
                nanos_text(allocated.get(run_id, 0)),
                nanos_text(self.direct.get(run_id, 0)),
                nanos_text(allocated.get(run_id, 0) + self.direct.get(run_id, 0)),
            ]
            for run_id in sorted(self.runs)
        ]
        _write_csv(path, header, rows)

    def _write_commitments(self, path: Path) -> None:
        """Per commitment and UTC day: committed and used accelerator-hours, fee, unused."""
        days: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for (name, hour), fee in self.fee_e.items():
            cell = days[(name, f"{to_naive(hour):%Y-%m-%d}")]
            q = self.fee_q[(name, hour)]
            cell[0] += q
            cell[1] += min(q, sum(self.used.get((name, hour), {}).values()))
            cell[2] += fee
            cell[3] += self.unused_commitment[(name, hour)]
        header = [
            "commitment_id",
            "day",
            "committed_accelerator_seconds",
            "used_accelerator_seconds",
            "fee_usd",
            "unused_cost_usd",
        ]
        rows = [
            [name, day, *(nanos_text(v) for v in days[(name, day)])] for name, day in sorted(days)
        ]
        _write_csv(path, header, rows)

    def totals(self) -> dict[str, Any]:
        """The Google export's totals; other providers' bills (FOCUS) under `providers`; unused
        commitment of every provider."""
        unused = sum(self.unused_commitment.values()) + sum(self.other_unused.values())
        extra = {"providers": dict(sorted(self.providers.items()))} if self.providers else {}
        return extra | {
            "unused_commitment_usd": nanos_text(unused),
            "unused_reservation_usd": nanos_text(self.unused_reservation),
            "billed_usd": nanos_text(self.billed),
            "credits_usd": nanos_text(self.credits),
            "effective_usd": nanos_text(self.billed + self.credits),
            "distinct_rows": self.rows,
            "rows_per_account": dict(sorted(self.rows_per_account.items())),
        }


def _write_held(path: Path, held: dict[Key, dict[str, int]]) -> None:
    rows = [
        [run_id, key[0], key[1], hour_text(key[2]), nanos_text(nanos)]
        for key in sorted(held)
        for run_id, nanos in sorted(held[key].items())
    ]
    _write_csv(
        path, ["run_id", "project_id", "resource_name", "hour", "held_accelerator_seconds"], rows
    )


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
