"""bqemulator (a local BigQuery) on a free port, driven by the real google-cloud-bigquery client.

It runs from its own environment, `.tools/bqemulator/` (made by `make setup`: the emulator
pins duckdb 1.5.x), as a subprocess on 127.0.0.1, started with `--partition-by-export-day`
(scripts/run_bqemulator.py: the emulator reads `_PARTITIONTIME` as the day of the row's
export_time, where it would read it as now). Known limits, worked around here and only here:
`load_table_from_json` fails (files are loaded with `load_table_from_file`), loads need the
table to exist, results come over REST, and a dry run reports 0 bytes.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from google.api_core.exceptions import GoogleAPIError

from flopledger.clients.bigquery import append_file, create_day_partitioned_table, make_client
from flopledger.collectors.gcp_billing.schema import EXPORT_FIELDS

REPO = Path(__file__).resolve().parent.parent
PYTHON = REPO / ".tools" / "bqemulator" / "bin" / "python"
LAUNCHER = REPO / "scripts" / "run_bqemulator.py"
PROJECT = "billing-admin"
TABLE = f"{PROJECT}.billing_export.gcp_billing_export_resource_v1_01A3F5_7C2B9D_4E8F10"


@dataclass
class BigQueryEmulator:
    endpoint: str
    log: Path

    def client(self):  # noqa: ANN201 - a google.cloud.bigquery.Client
        return make_client(PROJECT, self.endpoint, None, "US")

    def create_export_table(self, table: str = TABLE) -> None:
        create_day_partitioned_table(self.client(), table, EXPORT_FIELDS)

    def load(self, files: list[Path], table: str = TABLE) -> None:
        """Append extract files (NDJSON or Parquet) to the export table, creating it first."""
        self.create_export_table(table)
        client = self.client()
        for path in files:
            append_file(client, table, path)

    def queries(self) -> list[tuple[str, dict[str, object]]]:
        """(SQL, parameters) of every query job the emulator ran, newest first (jobs.list gives
        the newest 100 unless asked for more, and bqemulator pages no further)."""
        out = []
        for job in self.client().list_jobs(all_users=True, max_results=1_000_000):
            if job.job_type == "query":
                params = {p.name: p.value for p in job.query_parameters}
                out.append((job.query, params))
        return out


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_ready(emulator: BigQueryEmulator, process: subprocess.Popen) -> None:
    """Until the emulator answers (no deadline: it starts however loaded the machine; a hang
    is pytest-timeout's to end), or fails if it exits."""
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"bqemulator exited: {emulator.log.read_text()[-2000:]}")
        try:
            list(emulator.client().list_datasets())
            return
        except (GoogleAPIError, OSError, ValueError):
            time.sleep(0.3)
        except Exception:  # noqa: BLE001 - connection refused surfaces as requests' errors
            time.sleep(0.3)


@contextmanager
def running_bigquery_emulator(workdir: Path) -> Iterator[BigQueryEmulator]:
    if not PYTHON.exists():
        raise RuntimeError(f"{PYTHON} is missing: run `make setup` (it builds the emulator)")
    port = _free_port()
    log = workdir / "bqemulator.log"
    command = [
        str(PYTHON), str(LAUNCHER), "--partition-by-export-day", "--exact-bignumeric", "start",
        "--rest-host", "127.0.0.1", "--rest-port", str(port), "--grpc-port", "0",
        "--project", PROJECT, "--log-level", "warning",
    ]  # fmt: skip
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=workdir)
    emulator = BigQueryEmulator(f"http://127.0.0.1:{port}", log)
    try:
        _wait_ready(emulator, process)
        yield emulator
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
