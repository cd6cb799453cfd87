"""The one door to BigQuery: a `google.cloud.bigquery.Client` from project, endpoint,
credentials and location, and the few calls flopledger makes with it.

`from google.cloud import bigquery` happens here and nowhere else in flopledger. Like the
other Google doors, an explicit `endpoint` (else $BIGQUERY_EMULATOR_HOST) points the client
at a local emulator with anonymous credentials; otherwise application-default credentials
(`gcloud auth application-default login`, or a service-account key file named by
$GOOGLE_APPLICATION_CREDENTIALS). The billing source uses it; a BigQuery warehouse can too.

Every query carries `maximum_bytes_billed`: BigQuery refuses a job that would bill more,
before it runs. Results come back as Arrow: through the Storage Read API when its client
library is installed and the endpoint is Google's, over REST otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
from google.api_core.client_options import ClientOptions
from google.api_core.exceptions import GoogleAPIError
from google.auth.credentials import AnonymousCredentials, Credentials
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import bigquery
from google.cloud.bigquery.retry import DEFAULT_JOB_RETRY

EMULATOR_ENV = "BIGQUERY_EMULATOR_HOST"
# Transient errors are retried for a minute (a failed query job re-run for two), not the
# client's default ten: an endpoint that is down says so while the person is still there.
RETRY = bigquery.DEFAULT_RETRY.with_deadline(60)
JOB_RETRY = DEFAULT_JOB_RETRY.with_deadline(120)
LOCAL_RETRY = bigquery.DEFAULT_RETRY.with_deadline(5)  # an emulator is up, or it is not
# On every job: flopledger's own queries are found in the bill (and INFORMATION_SCHEMA.JOBS).
JOB_LABELS = {"app": "flopledger"}
Client = bigquery.Client


class BigQueryError(RuntimeError):
    """A BigQuery call that failed; the message is one line a person can act on."""


@dataclass(frozen=True)
class Param:
    """A named query parameter (`@name` in the SQL) and its BigQuery type."""

    name: str
    type: str  # DATE, TIMESTAMP, STRING, INT64
    value: date | datetime | str | int | None


def make_client(
    project: str | None = None,
    endpoint: str | None = None,
    credentials: Credentials | None = None,
    location: str | None = None,
) -> bigquery.Client:
    """A BigQuery client. Jobs run (and are billed) in `project`; `location` is where the
    data lives (the export dataset's location, e.g. US or EU)."""
    endpoint = endpoint or os.environ.get(EMULATOR_ENV)
    try:
        if endpoint is None:
            return bigquery.Client(project=project, credentials=credentials, location=location)
        if not endpoint.startswith(("http://", "https://")):
            endpoint = f"http://{endpoint}"
        return bigquery.Client(
            project=project or "local",
            credentials=credentials or AnonymousCredentials(),
            location=location,
            client_options=ClientOptions(api_endpoint=endpoint),
        )
    except DefaultCredentialsError as exc:
        raise BigQueryError(
            "no Google credentials: run `gcloud auth application-default login` or set "
            f"GOOGLE_APPLICATION_CREDENTIALS to a service-account key file ({exc})"
        ) from None


def is_emulated(client: bigquery.Client) -> bool:
    """True when the client talks to a local endpoint rather than Google's."""
    endpoint = getattr(client._connection, "API_BASE_URL", "") or ""
    return "googleapis.com" not in endpoint


def _retries(client: bigquery.Client) -> tuple[Any, Any]:
    """(request retry, query-job retry): short and none for a local emulator."""
    return (LOCAL_RETRY, None) if is_emulated(client) else (RETRY, JOB_RETRY)


def _storage_client(client: bigquery.Client) -> Any | None:
    """A Storage Read API client where it can be used (Google's endpoint, library installed)."""
    if is_emulated(client):
        return None
    try:
        from google.cloud import bigquery_storage  # type: ignore[attr-defined]
    except ImportError:
        return None
    return bigquery_storage.BigQueryReadClient(credentials=client._credentials)


def _job_config(
    params: Sequence[Param], max_bytes_billed: int, dry_run: bool = False
) -> bigquery.QueryJobConfig:
    return bigquery.QueryJobConfig(
        query_parameters=[bigquery.ScalarQueryParameter(p.name, p.type, p.value) for p in params],
        maximum_bytes_billed=max_bytes_billed,
        dry_run=dry_run,
        use_query_cache=not dry_run,
        labels=JOB_LABELS,
    )


def _fail(what: str, exc: Exception) -> BigQueryError:
    message = getattr(exc, "message", None) or str(exc)
    cause = getattr(exc, "cause", None)  # a RetryError: what kept failing
    if cause is not None:
        message = f"{message} ({type(cause).__name__}: {cause})"
    return BigQueryError(f"{what}: {message.strip().splitlines()[0]}")


def query_batches(
    client: bigquery.Client, sql: str, params: Sequence[Param], max_bytes_billed: int
) -> Iterator[pa.RecordBatch]:
    """Run a query (never billing more than `max_bytes_billed`) and yield its rows as Arrow."""
    try:
        retry, job_retry = _retries(client)
        job = client.query(
            sql, job_config=_job_config(params, max_bytes_billed), retry=retry, job_retry=job_retry
        )
        rows = job.result(retry=retry)
        yield from rows.to_arrow_iterable(bqstorage_client=_storage_client(client))
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail("BigQuery query failed", exc) from None


def dry_run_bytes(
    client: bigquery.Client, sql: str, params: Sequence[Param], max_bytes_billed: int
) -> int:
    """The bytes BigQuery says the query would scan (its dry run: nothing runs or is billed)."""
    try:
        retry, _ = _retries(client)
        config = _job_config(params, max_bytes_billed, dry_run=True)
        job = client.query(sql, job_config=config, retry=retry, job_retry=None)
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail("BigQuery dry run failed", exc) from None
    return int(job.total_bytes_processed or 0)


def _schema_field(field: Any) -> bigquery.SchemaField:
    """A schema field from any (name, type, mode, fields) tuple (FLOAT is FLOAT64)."""
    kind = "FLOAT64" if field.type == "FLOAT" else field.type
    return bigquery.SchemaField(
        field.name, kind, mode=field.mode, fields=[_schema_field(f) for f in field.fields]
    )


def create_day_partitioned_table(
    client: bigquery.Client, table: str, fields: Sequence[Any]
) -> None:
    """Create `project.dataset.table` (and its dataset) if missing, partitioned by ingestion day,
    as Google creates the billing export."""
    project, dataset, _ = table.split(".")
    try:
        client.create_dataset(f"{project}.{dataset}", exists_ok=True, retry=_retries(client)[0])
        spec = bigquery.Table(table, schema=[_schema_field(f) for f in fields])
        spec.time_partitioning = bigquery.TimePartitioning(type_=bigquery.TimePartitioningType.DAY)
        client.create_table(spec, exists_ok=True, retry=_retries(client)[0])
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail(f"creating {table} failed", exc) from None


SOURCE_FORMATS = {
    ".parquet": bigquery.SourceFormat.PARQUET,
    ".ndjson": bigquery.SourceFormat.NEWLINE_DELIMITED_JSON,
    ".jsonl": bigquery.SourceFormat.NEWLINE_DELIMITED_JSON,
    ".json": bigquery.SourceFormat.NEWLINE_DELIMITED_JSON,
}


def append_file(client: bigquery.Client, table: str, path: Path) -> None:
    """Append one NDJSON or Parquet file to an existing table (a load job)."""
    fmt = SOURCE_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise BigQueryError(f"{path}: not an NDJSON or Parquet file")
    config = bigquery.LoadJobConfig(
        source_format=fmt, write_disposition=bigquery.WriteDisposition.WRITE_APPEND
    )
    try:
        with path.open("rb") as fh:
            job = client.load_table_from_file(fh, table, job_config=config, timeout=60)
        job.result(retry=_retries(client)[0])
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail(f"loading {path} into {table} failed", exc) from None
