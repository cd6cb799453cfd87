"""The peer: a straightforward pandas implementation of the allocation rule (DESIGN.md; the
marts billing_hourly, commitment_allocation, run_held_hours, resource_hour_pool,
run_allocation, run_direct_costs and cost_per_run) over the same input files the warehouse
reads, so that `flopledger run` can be compared with what a data scientist would write.

    .venv/bin/python benchmarks/pandas_peer.py FLEET_DIR [--to YYYY-MM-DD] [--out costs.csv]

It reads every billing extract (NDJSON and Parquet; rows repeated across extracts counted
once), the jobs files and `sacct --json`, the GPU spool and the TPU Monitoring pages (busy
share per resource-hour, as the utilisation marts use it), and writes each run's effective
cost in USD (9 places) as CSV: `run_id,effective_cost`.

Money: amounts are read as the exporter's floats (pandas' own reading) and turned into integer
nano-USD per value (amount x 1e9, rounded; a non-USD amount divided by its conversion rate
first); from there on everything is integer nano-USD with the marts' floor divisions (Python
integers where a product passes int64). A value whose nano-USD rounding lands on a tie could
differ by one nano-dollar from the collector's Decimal, so the comparison is to the cent.

What it does not do (the simulator never writes it): quarantine malformed rows, split one row
over several named commitments, match committed-use credits that name no commitment by
account/region/kind, GKE pods, MIG shares, Slurm host lists in bracket form, settings rows
overriding the classification patterns.
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
from datetime import date, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from flopledger.collectors.skus import classify_sku

HOUR_US = 3_600_000_000
COMMITMENT_SKU = r"^Commitment v1: "
CORES_SKU = r"(?i)\b(?:core|cpu|vcpu)s?\b"
MEMORY_SKU = r"(?i)\b(?:ram|memory)\b"
COMMITTED_CREDITS = {"COMMITTED_USAGE_DISCOUNT", "COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE"}
SECONDS_PER_UNIT = {"seconds": 1, "second": 1, "s": 1, "hour": 3600, "hours": 3600, "h": 3600}
RUN_LABEL = "run_id"


def _say(message: str) -> None:
    print(f"peer {message}", file=sys.stderr, flush=True)


def _floor_div(a: pd.Series, b: pd.Series, c: pd.Series) -> list[int]:
    """floor(a x b / c) exactly, in Python integers (the products pass int64)."""
    return [int(x) * int(y) // int(z) for x, y, z in zip(a, b, c, strict=True)]


def _us(values: pd.Series) -> pd.Series:
    """Timestamps (text or datetime, UTC) as integer microseconds since the epoch."""
    if not pd.api.types.is_datetime64_any_dtype(values):
        values = pd.to_datetime(
            values.str.replace(" UTC", "", regex=False), utc=True, format="ISO8601"
        )
    return values.dt.tz_convert("UTC").dt.tz_localize(None).astype("datetime64[us]").astype("int64")


def _pairs(value) -> dict:
    """[{key, value}, ...] (list or array) as a dict."""
    if not isinstance(value, list | np.ndarray):
        return {}
    return {p["key"]: p["value"] for p in value}


def _nanos(amount: pd.Series, rate: pd.Series) -> pd.Series:
    """Amounts in the billing currency as integer nano-USD (amount / rate, rounded)."""
    usd = amount.fillna(0.0).to_numpy() / np.where(rate.isna(), 1.0, rate.to_numpy())
    return pd.Series(np.rint(usd * 1e9).astype("int64"), index=amount.index)


# -- billing ------------------------------------------------------------------------------


def read_billing(fleet: Path, last: date | None) -> pd.DataFrame | None:
    """Every distinct billing row (None: no extract files)."""
    frames = []
    for path in sorted(glob.glob(str(fleet / "billing" / "**" / "*.ndjson"), recursive=True)):
        frame = pd.read_json(path, lines=True, dtype=False)
        for column in ("usage_start_time", "usage_end_time", "export_time"):
            frame[column] = pd.to_datetime(
                frame[column].str.replace(" UTC", ""), utc=True, format="ISO8601"
            )
        frames.append(frame)
    for path in sorted(glob.glob(str(fleet / "billing" / "**" / "*.parquet"), recursive=True)):
        frames.append(pd.read_parquet(path))
    if not frames:
        return None
    raw = pd.concat(frames, ignore_index=True)
    _say(f"billing: {len(raw):,} rows in {len(frames)} files")
    get = lambda column, key: raw[column].map(lambda v: v.get(key) if isinstance(v, dict) else None)  # noqa: E731
    rows = pd.DataFrame(
        {
            "billing_account_id": raw["billing_account_id"],
            "sku_id": get("sku", "id"),
            "sku": get("sku", "description").fillna(""),
            "project_id": get("project", "id"),
            "resource_name": get("resource", "name"),
            "region": get("location", "region"),
            "start_us": _us(raw["usage_start_time"]),
            "end_us": _us(raw["usage_end_time"]),
            "export_us": _us(raw["export_time"]),
            "amount": pd.to_numeric(get("usage", "amount")),
            "unit": get("usage", "unit"),
            "pricing_amount": pd.to_numeric(get("usage", "amount_in_pricing_units")),
            "cost": pd.to_numeric(raw["cost"]),
            "cost_at_list": pd.to_numeric(raw["cost_at_list"]),
            "rate": pd.to_numeric(raw["currency_conversion_rate"]),
            "labels": raw["labels"].map(_pairs),
            "system_labels": raw["system_labels"].map(_pairs),
            "credits": raw["credits"].map(
                lambda cs: [dict(c) for c in cs] if isinstance(cs, list | np.ndarray) else []
            ),
        }
    )
    # The same row in two extracts is one row: identical in every field, export_time included.
    key = rows[["billing_account_id", "sku_id", "project_id", "resource_name", "start_us"]].copy()
    key[["end_us", "export_us", "cost"]] = rows[["end_us", "export_us", "cost"]]
    key["labels"] = rows["labels"].map(lambda d: json.dumps(d, sort_keys=True))
    key["credits"] = rows["credits"].map(
        lambda cs: json.dumps([(c.get("id"), c.get("amount")) for c in cs])
    )
    rows = rows[~key.duplicated()].reset_index(drop=True)
    if last is not None:
        day = pd.to_datetime(rows["start_us"], unit="us").dt.date
        rows = rows[day <= last].reset_index(drop=True)
    _say(f"billing: {len(rows):,} distinct rows")
    return rows


def classify(rows: pd.DataFrame, known_runs: set[str]) -> pd.DataFrame:
    """The per-row columns billing_hourly derives before spreading a row over its hours."""
    skus = rows["sku"].drop_duplicates()
    accelerator = dict(zip(skus, (classify_sku(s).accelerator_type for s in skus), strict=True))
    rows["accelerator_type"] = rows["sku"].map(accelerator)
    is_acc = rows["accelerator_type"].notna()
    factor = rows["unit"].fillna("").str.strip().str.lower().map(SECONDS_PER_UNIT)
    acc_seconds = np.where(is_acc & factor.notna(), rows["amount"].fillna(0) * factor.fillna(0), 0)
    cores = rows["sku"].str.contains(CORES_SKU, regex=True)
    memory = rows["sku"].str.contains(MEMORY_SKU, regex=True)
    units = np.where(
        is_acc,
        acc_seconds,
        np.where(
            cores,
            rows["amount"].fillna(0),
            np.where(memory, rows["pricing_amount"].fillna(rows["amount"]).fillna(0), 0),
        ),
    )
    rows["resource_kind"] = np.where(
        is_acc, rows["accelerator_type"], np.where(cores, "cores", np.where(memory, "memory", None))
    )
    rows["row_kind"] = np.where(
        rows["sku"].str.contains(COMMITMENT_SKU, regex=True),
        "commitment_fee",
        np.where(
            rows["system_labels"].map(
                lambda d: (
                    str(d.get("compute.googleapis.com/is_unused_reservation", "")).lower() == "true"
                )
            ),
            "unused_reservation",
            "usage",
        ),
    )
    credits_total = rows["credits"].map(lambda cs: sum(c["amount"] or 0.0 for c in cs))
    committed = rows["credits"].map(
        lambda cs: sum(c["amount"] or 0.0 for c in cs if c.get("type") in COMMITTED_CREDITS)
    )
    rows["committed_credit_id"] = rows["credits"].map(
        lambda cs: next((c.get("id") for c in cs if c.get("type") in COMMITTED_CREDITS), None)
    )
    one = pd.Series(1.0, index=rows.index)
    rows["billed"] = _nanos(rows["cost"], rows["rate"])
    credits_usd = _nanos(credits_total, rows["rate"])
    rows["effective"] = rows["billed"] + credits_usd
    rows["paid"] = np.rint(acc_seconds * 1e9).astype("int64")
    rows["units"] = np.rint(units * 1e9).astype("int64")
    credits_local = _nanos(credits_total, one)
    committed_local = _nanos(committed, one)
    rows["committed_credit"] = [
        (u * c // t) if t else 0
        for u, c, t in zip(credits_usd, committed_local, credits_local, strict=True)
    ]
    run_label = rows["labels"].map(lambda d: d.get(RUN_LABEL, d.get(f"k8s-label/{RUN_LABEL}")))
    rows["direct_run_id"] = run_label.where(
        run_label.isin(known_runs) & (rows["row_kind"] == "usage")
    )
    rows["commitment_id"] = rows["resource_name"].where(rows["row_kind"] == "commitment_fee")
    return rows


def spread(rows: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Each row's share of every UTC hour it covers (cumulative floors: parts add up)."""
    start, end = rows["start_us"].to_numpy(), rows["end_us"].to_numpy()
    first = start - start % HOUR_US
    stop = np.maximum(end, start + 1)
    n = (stop - first + HOUR_US - 1) // HOUR_US
    hours = rows.loc[rows.index.repeat(n)].copy()
    step = hours.groupby(level=0).cumcount().to_numpy()
    hours["hour_us"] = np.repeat(first, n) + step * HOUR_US
    s, e, h = hours["start_us"].to_numpy(), hours["end_us"].to_numpy(), hours["hour_us"].to_numpy()
    overlap = np.where(e == s, 1, np.minimum(e, h + HOUR_US) - np.maximum(s, h))
    hours["upto"] = pd.Series(overlap, index=hours.index).groupby(level=0).cumsum().to_numpy()
    hours["before"] = hours["upto"] - overlap
    total = np.maximum(e - s, 1)
    hours["total"] = total
    multi = n[np.repeat(np.arange(len(rows)), n)] > 1
    for column in columns:
        whole = hours[column].to_numpy()
        parts = whole.copy()
        if multi.any():  # one-hour rows stay whole; only rows spanning hours are split
            sub = hours[multi]
            upto = _floor_div(sub[column], sub["upto"], sub["total"])
            before = _floor_div(sub[column], sub["before"], sub["total"])
            parts[multi] = np.array(
                [a - b for a, b in zip(upto, before, strict=True)], dtype=object
            )
        hours[column] = parts
    return hours.reset_index(drop=True)


# -- jobs ---------------------------------------------------------------------------------


def read_placements(fleet: Path, last: date | None) -> tuple[set[str], pd.DataFrame]:
    """Known run ids and placements (run, project, resource, accelerators, start, end)."""
    records = []
    for path in sorted(glob.glob(str(fleet / "jobs" / "*.jsonl"))):
        frame = pd.read_json(path, lines=True, dtype=False)
        records += frame.to_dict("records")
    runs, placements = [], []
    for r in records:
        runs.append((r["run_id"], r["submitted_at"]))
        for p in r.get("placements") or []:
            placements.append(
                (r["run_id"], r["submitted_at"], p.get("project_id"), p["resource_name"])
                + (p["accelerators"], p.get("start") or r["started_at"])
                + (p.get("end") or r["ended_at"],)
            )
    sacct = fleet / "jobs" / "sacct.json"
    if sacct.exists():
        for job in json.loads(sacct.read_text())["jobs"]:
            state = job["state"]["current"][0]
            if state == "PENDING":
                continue
            times, cluster = job["time"], job.get("cluster") or "slurm"
            attempt = int(job.get("restart_cnt") or 0) + 1
            run_id = f"slurm-{cluster}-{job['job_id']}" + (f"-r{attempt}" if attempt > 1 else "")
            submitted = pd.Timestamp(times["submission"], unit="s").isoformat()
            gpus = max(
                [
                    int(t.get("count") or 0)
                    for t in job["tres"]["allocated"]
                    if t.get("name") == "gpu"
                ]
                + [0]
            )
            hosts = [h for h in (job.get("nodes") or "").split(",") if h]
            runs.append((run_id, submitted))
            if not times.get("start") or not hosts:
                continue
            share, extra = divmod(gpus, len(hosts))
            start = pd.Timestamp(times["start"], unit="s").isoformat()
            end = (
                pd.Timestamp(times["end"], unit="s").isoformat()
                if state != "RUNNING" and times.get("end")
                else None
            )
            for i, host in enumerate(hosts):
                count = share + (1 if i < extra else 0)
                placements.append((run_id, submitted, None, host, count, start, end))
    run_frame = pd.DataFrame(runs, columns=["run_id", "submitted"])
    place = pd.DataFrame(
        placements,
        columns=[
            "run_id",
            "submitted",
            "project_id",
            "resource_name",
            "accelerators",
            "start",
            "end",
        ],
    )
    if last is not None:
        run_frame = run_frame[_day(run_frame["submitted"]) <= last]
        place = place[_day(place["submitted"]) <= last]
    place = place[place["start"].notna() & (place["accelerators"] > 0)].copy()
    place["start_us"] = _us(place["start"].str.replace("Z", "+00:00"))
    has_end = place["end"].notna()
    place["end_us"] = pd.Series(pd.NA, index=place.index, dtype="Int64")
    place.loc[has_end, "end_us"] = _us(place.loc[has_end, "end"].str.replace("Z", "+00:00"))
    _say(f"jobs: {len(run_frame):,} runs, {len(place):,} placements")
    return set(run_frame["run_id"]), place


def _day(text: pd.Series) -> pd.Series:
    return pd.to_datetime(text.str.replace("Z", "+00:00"), utc=True, format="ISO8601").dt.date


def held_hours(place: pd.DataFrame, billing: pd.DataFrame) -> pd.DataFrame:
    """run_held_hours: accelerator-nanoseconds each run held per resource-hour."""
    billed = (
        billing[billing["resource_name"].notna()]
        .groupby(["project_id", "resource_name"], as_index=False)["end_us"]
        .max()
    )
    billed["projects"] = billed.groupby("resource_name")["project_id"].transform("count")
    with_project = place[place["project_id"].notna()].merge(
        billed, on=["project_id", "resource_name"], suffixes=("", "_billed")
    )
    without = place[place["project_id"].isna()].drop(columns="project_id")
    without = without.merge(
        billed[billed["projects"] == 1], on="resource_name", suffixes=("", "_billed")
    )
    holds = pd.concat([with_project, without], ignore_index=True)
    last_hour_end = (holds["end_us_billed"] - 1) // HOUR_US * HOUR_US + HOUR_US
    holds["end_us"] = holds["end_us"].fillna(last_hour_end).astype("int64")
    holds = holds[holds["end_us"] > holds["start_us"]]
    first = holds["start_us"] // HOUR_US * HOUR_US
    n = (holds["end_us"] - first + HOUR_US - 1) // HOUR_US
    hours = holds.loc[holds.index.repeat(n)].copy()
    hours["hour_us"] = np.repeat(first.to_numpy(), n.to_numpy()) + (
        hours.groupby(level=0).cumcount().to_numpy() * HOUR_US
    )
    overlap = np.minimum(hours["end_us"], hours["hour_us"] + HOUR_US) - np.maximum(
        hours["start_us"], hours["hour_us"]
    )
    hours["held"] = hours["accelerators"].astype("int64") * overlap * 1000
    return hours.groupby(["run_id", "project_id", "resource_name", "hour_us"], as_index=False)[
        "held"
    ].sum()


# -- the allocation -----------------------------------------------------------------------


def commitment_shares(hourly: pd.DataFrame) -> pd.DataFrame:
    """commitment_allocation, for rows whose committed-use credit names the commitment."""
    fees = (
        hourly[hourly["row_kind"] == "commitment_fee"]
        .groupby(["commitment_id", "hour_us"], as_index=False)
        .agg(fee=("effective", "sum"), committed=("units", "sum"))
    )
    usage = hourly[(hourly["row_kind"] == "usage") & hourly["committed_credit_id"].notna()]
    usage = usage.drop(columns="commitment_id").rename(
        columns={"committed_credit_id": "commitment_id"}
    )
    users = (
        usage.merge(fees[["commitment_id", "hour_us"]], on=["commitment_id", "hour_us"])
        .groupby(
            ["commitment_id", "hour_us", "project_id", "resource_name", "direct_run_id"],
            as_index=False,
            dropna=False,
        )["units"]
        .sum()
    )
    users["used"] = users.groupby(["commitment_id", "hour_us"])["units"].transform("sum")
    users = users.merge(fees, on=["commitment_id", "hour_us"])
    denominator = np.maximum(users["committed"].astype("int64"), users["used"].astype("int64"))
    users["fee_share"] = [
        f * u // d if d > 0 else 0
        for f, u, d in zip(users["fee"], users["units"], denominator, strict=True)
    ]
    return users


def allocate(billing: pd.DataFrame, known: set[str], place: pd.DataFrame) -> pd.Series:
    """Each known run's effective cost in nano-USD (resource-hour shares plus direct rows)."""
    rows = classify(billing, known)
    money = ["billed", "effective", "paid", "units", "committed_credit"]
    hourly = spread(rows, money)
    _say(f"allocation: {len(hourly):,} row-hours")
    fees = commitment_shares(hourly)
    held = held_hours(place, rows)
    usage = hourly[(hourly["row_kind"] == "usage") & hourly["resource_name"].notna()]
    direct_paid = (
        usage[usage["direct_run_id"].notna()]
        .groupby(["direct_run_id", "project_id", "resource_name", "hour_us"], as_index=False)[
            "paid"
        ]
        .sum()
        .rename(columns={"direct_run_id": "run_id", "paid": "direct_paid"})
    )
    held = held.merge(
        direct_paid, how="left", on=["run_id", "project_id", "resource_name", "hour_us"]
    )
    held["claim"] = np.maximum(held["held"] - held["direct_paid"].fillna(0).astype("int64"), 0)
    pool_rows = usage[usage["direct_run_id"].isna()][
        ["project_id", "resource_name", "hour_us", "effective", "paid"]
    ]
    pool_fees = fees[fees["direct_run_id"].isna() & fees["resource_name"].notna()]
    pool_fees = pool_fees[["project_id", "resource_name", "hour_us", "fee_share"]].rename(
        columns={"fee_share": "effective"}
    )
    pool = (
        pd.concat([pool_rows, pool_fees.assign(paid=0)], ignore_index=True)
        .groupby(["project_id", "resource_name", "hour_us"], as_index=False)
        .agg(E=("effective", lambda s: sum(int(v) for v in s)), P=("paid", "sum"))
    )
    claims = held.groupby(["project_id", "resource_name", "hour_us"], as_index=False)["claim"].sum()
    pool = pool.merge(
        claims.rename(columns={"claim": "H"}),
        how="left",
        on=["project_id", "resource_name", "hour_us"],
    )
    pool["D"] = np.maximum(pool["P"], pool["H"].fillna(0).astype("int64"))
    shares = held.merge(pool, on=["project_id", "resource_name", "hour_us"])
    shares = shares[shares["D"] > 0]
    shares["allocated"] = _floor_div(shares["E"], shares["claim"], shares["D"])
    allocated = shares.groupby("run_id")["allocated"].sum()
    direct = usage[usage["direct_run_id"].notna()].groupby("direct_run_id")["effective"].sum()
    direct_rows = hourly[(hourly["direct_run_id"].notna()) & hourly["resource_name"].isna()]
    direct = direct.add(direct_rows.groupby("direct_run_id")["effective"].sum(), fill_value=0)
    direct_fees = fees[fees["direct_run_id"].notna()].groupby("direct_run_id")["fee_share"].sum()
    total = pd.Series(0, index=sorted(known), dtype=object)
    for part in (allocated, direct, direct_fees):
        total = total.add(part.reindex(total.index).fillna(0).map(int), fill_value=0)
    return total.map(int)


def busy_per_resource_hour(fleet: Path, last: date | None) -> int:
    """The utilisation side: GPU and TPU busy share per resource-hour (rows grouped)."""
    groups = 0
    for path in sorted(glob.glob(str(fleet / "spool" / "**" / "*.parquet"), recursive=True)):
        frame = pd.read_parquet(path)
        frame["hour"] = frame["minute"].dt.floor("h")
        if last is not None:
            frame = frame[frame["minute"].dt.date <= last]
        grouped = frame.groupby(["resource_name", "hour"]).agg(
            util=("util_gpu_pct", "mean"), energy=("energy_j", "sum"), samples=("samples", "sum")
        )
        groups += len(grouped)
    for path in sorted(glob.glob(str(fleet / "monitoring" / "**" / "*.json"), recursive=True)):
        page = json.loads(Path(path).read_text())
        points = pd.json_normalize(
            page.get("timeSeries") or [],
            record_path="points",
            meta=[["resource", "labels", "node_id"], ["metric", "type"]],
        )
        if points.empty:
            continue
        points["hour"] = pd.to_datetime(points["interval.endTime"]).dt.floor("h")
        groups += len(
            points.groupby(["resource.labels.node_id", "metric.type", "hour"])[
                "value.doubleValue"
            ].mean()
        )
    return groups


def run_costs(fleet: Path, last: date | None) -> pd.Series:
    """Every known run's effective cost in nano-USD."""
    if not fleet.is_dir():
        raise SystemExit(f"pandas_peer: {fleet} is not a folder")
    billing = read_billing(fleet, last)
    known, place = read_placements(fleet, last)
    if billing is None or billing.empty or place.empty:  # nothing billed or nothing held
        return allocate_direct_only(billing, known) if billing is not None else _zeros(known)
    return allocate(billing, known, place)


def _zeros(known: set[str]) -> pd.Series:
    return pd.Series(0, index=sorted(known), dtype=object)


def allocate_direct_only(billing: pd.DataFrame, known: set[str]) -> pd.Series:
    """No placements: runs get only the rows labelled with them (and no fee shares)."""
    if billing.empty:
        return _zeros(known)
    rows = classify(billing, known)
    direct = rows[rows["direct_run_id"].notna()].groupby("direct_run_id")["effective"].sum()
    return _zeros(known).add(direct.map(int), fill_value=0).map(int)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fleet", type=Path)
    parser.add_argument("--to", type=date.fromisoformat, help="last usage day (default: all)")
    parser.add_argument("--out", type=Path, help="CSV of run_id,effective_cost (default: stdout)")
    parser.add_argument("--no-telemetry", action="store_true", help="skip the busy-share side")
    args = parser.parse_args()
    t0 = time.monotonic()
    costs = run_costs(args.fleet, args.to)
    _say(f"costs of {len(costs):,} runs in {time.monotonic() - t0:.1f} s")
    if not args.no_telemetry:
        t1 = time.monotonic()
        groups = busy_per_resource_hour(args.fleet, args.to)
        _say(f"telemetry: {groups:,} resource-hour groups in {time.monotonic() - t1:.1f} s")
    lines = ["run_id,effective_cost"] + [
        f"{run},{'-' if nanos < 0 else ''}{abs(nanos) // 10**9}.{abs(nanos) % 10**9:09d}"
        for run, nanos in costs.items()
    ]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    _say(f"done at {datetime.now().isoformat(timespec='seconds')}")


if __name__ == "__main__":
    main()
