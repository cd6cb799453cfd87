"""The simulated export into a BigQuery table (a local emulator), as Google's export would hold
it, and the config block that reads it there: the demo runs on files or on the table.

The table holds each row once: the extracts' overlap files (`*-overlap.*`, rows repeated as
overlapping extracts repeat them) are not loaded. Loads go file by file (NDJSON or Parquet,
as written), through the BigQuery door.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from flopledger.clients.bigquery import append_file, create_day_partitioned_table, make_client
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS

DEMO_TABLE = "flopledger-demo.billing_export.gcp_billing_export_resource_v1_simulated"
FILES_LINE = '    paths: ["billing/**/*.ndjson", "billing/**/*.parquet"]'


def export_files(billing_dir: Path) -> list[Path]:
    """The extract files that hold each row once (overlap copies left out), in write order."""
    files = [*billing_dir.glob("*/*.ndjson"), *billing_dir.glob("*/*.parquet")]
    return sorted(p for p in files if "-overlap." not in p.name)


def load_export(
    billing_dir: Path,
    endpoint: str,
    table: str = DEMO_TABLE,
    progress: Callable[[str], None] | None = None,
) -> int:
    """Create the day-partitioned export table at `endpoint` and load the extracts into it.
    Returns the number of files loaded."""
    project = table.rsplit(".", 2)[0]
    client = make_client(project, endpoint, None, "US")
    create_day_partitioned_table(client, table, EXPORT_FIELDS)
    files = export_files(billing_dir)
    for n, path in enumerate(files, start=1):
        append_file(client, table, path)
        if progress is not None and (n % 20 == 0 or n == len(files)):
            progress(f"  bigquery: loaded {n}/{len(files)} extract files into {table}")
    return len(files)


def read_from_bigquery(config_path: Path, endpoint: str, table: str = DEMO_TABLE) -> None:
    """Point the written config's gcp_billing source at the table instead of the files."""
    text = config_path.read_text()
    if FILES_LINE not in text:
        raise ValueError(f"{config_path}: no gcp_billing paths line to replace")
    block = "\n".join(
        [
            "    bigquery:  # the export table (docs/bigquery.md)",
            f"      table: {table}",
            "      location: US",
            f"      endpoint: {endpoint}  # a local emulator; leave out for BigQuery itself",
        ]
    )
    config_path.write_text(text.replace(FILES_LINE, block, 1))
