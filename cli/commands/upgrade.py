"""`flopledger upgrade --config FILE [--apply]`: what this version needs of a deployment made by
an older one, and, with `--apply`, doing the warehouse's part.

It compares the deployed `DAGSTER_HOME/dagster.yaml` with this version's (an upgrade never
replaces it: one edited on purpose is its owner's, so it says what to copy) and the raw tables
with this version's (warehouse/duckdb_migrations.py): the explicit migrations not yet recorded,
the tables and columns to add, and any column of another type that no migration changes (that
one needs a person: CHANGELOG.md). `--apply` runs the warehouse's ensure_schema (what the next
run would do: the migrations, each recorded in `bookkeeping.migrations`, then the new
columns) and says what each migration did. Exit 0 when nothing is left to do, 1 when
something is; 2 when the config cannot be read or a run holds the warehouse.
"""

from __future__ import annotations

import argparse

from flopledger.settings import load_config


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "upgrade", help="say what this version needs of the deployment (and --apply it)"
    )
    parser.add_argument("--config", default="flopledger.yaml", help="path to flopledger.yaml")
    parser.add_argument(
        "--apply", action="store_true", help="migrate the raw tables now (what the next run does)"
    )
    parser.set_defaults(func=upgrade)


def upgrade(args: argparse.Namespace) -> int:
    from flopledger.cli.main import version
    from flopledger.models import query_sql
    from flopledger.pipelines.health import instance_file_check, instance_file_state
    from flopledger.warehouse import open_warehouse

    config = load_config(args.config)
    print(version())
    left = instance_file_state(config)[1] == "differs"
    print(f"dagster.yaml: {instance_file_check(config)[2]}")
    warehouse = open_warehouse(config.warehouse)
    plan = warehouse.upgrade_plan()
    if plan is None:
        print("raw tables: not compared here (BigQuery: the next run adds new columns)")
        return 1 if left else 0
    if args.apply and plan.to_do():
        warehouse.ensure_schema()
        rows = warehouse.query(query_sql("migrations_recorded")).to_pylist()
        done = {r["migration"]: r["outcome"] for r in rows}
        for migration in plan.migrations:
            print(f"migrated: {migration.name}: {done.get(migration.name, 'not recorded')}")
        for what in plan.added:
            print(f"added: {what}")
        plan = warehouse.upgrade_plan() or plan
    to_do = plan.to_do()
    if not to_do:
        print("raw tables: this version's")
    for line in to_do:
        print(f"raw tables: {line}")
    if to_do and not args.apply:
        print("`flopledger upgrade --apply` (or the next run) makes these changes")
    return 1 if left or plan.retyped or (to_do and not args.apply) else 0
