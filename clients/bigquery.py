"""The one door to BigQuery: a `google.cloud.bigquery.Client` from project, endpoint,
credentials and location, and the few calls flopledger makes with it.

`from google.cloud import bigquery` happens here and nowhere else in flopledger. Like the
other Google doors, an explicit `endpoint` (else $BIGQUERY_EMULATOR_HOST) points the client
at a local emulator with anonymous credentials; otherwise application-default credentials
(`gcloud auth application-default login`, or a service-account key file named by
$GOOGLE_APPLICATION_CREDENTIALS). The billing source (collectors/) and the BigQuery warehouse
(warehouse/bigquery.py) use it.

Every query carries `maximum_bytes_billed`: BigQuery refuses a job that would bill more,
before it runs. Results come back as Arrow: through the Storage Read API when its client
library is installed and the endpoint is Google's, over REST otherwise.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from google.api_core.client_options import ClientOptions
from google.api_core.exceptions import GoogleAPIError, NotFound
from google.auth.credentials import AnonymousCredentials, Credentials
from google.auth.exceptions import DefaultCredentialsError
from google.cloud import bigquery
from google.cloud.bigquery.retry import DEFAULT_JOB_RETRY

from flopledger.clients.network import (
    deadline,
    failure,
    is_refused,
    is_timeout,
    limit_refusals,
)

EMULATOR_ENV = "BIGQUERY_EMULATOR_HOST"
# Transient errors are retried for a minute (a failed query job re-run for two), not the
# client's default ten: an endpoint that is down says so while the person is still there.
RETRY = bigquery.DEFAULT_RETRY.with_deadline(60)
JOB_RETRY = DEFAULT_JOB_RETRY.with_deadline(120)
LOCAL_RETRY = bigquery.DEFAULT_RETRY.with_deadline(5)  # an emulator is up, or it is not
# A refused connection is tried twice more, quickly, then said; a request with no answer within
# the client's deadline_s is said at once (clients/network.py), whatever the retry's deadline.
# On every job: flopledger's own queries are found in the bill (and INFORMATION_SCHEMA.JOBS).
JOB_LABELS = {"app": "flopledger"}
Client = bigquery.Client
# Scratch and staging tables expire a day after they are made: a run killed before it drops
# them (they are dropped as soon as used) leaves nothing BigQuery keeps, or bills, for long.
SCRATCH_EXPIRY = timedelta(days=1)


class BigQueryError(RuntimeError):
    """A BigQuery call that failed; the message is one line a person can act on."""


class BigQueryTimeout(BigQueryError):
    """A query that reached its time limit (`query_bounded`); its job was cancelled."""


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
    deadline_s: float | None = None,
) -> bigquery.Client:
    """A BigQuery client. Jobs run (and are billed) in `project`; `location` is where the
    data lives (the export dataset's location, e.g. US or EU). Each request it makes here
    waits at most `deadline_s` (the process's, clients/network.py, unless given) for an
    answer."""
    endpoint = endpoint or os.environ.get(EMULATOR_ENV)
    try:
        if endpoint is None:
            client = _Client(project=project, credentials=credentials, location=location)
        else:
            if not endpoint.startswith(("http://", "https://")):
                endpoint = f"http://{endpoint}"
            client = _Client(
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
    client.deadline_s = deadline(deadline_s)
    return client


class _Client(bigquery.Client):
    """A BigQuery client that carries its per-request deadline (seconds)."""

    deadline_s: float | None = None


def _deadline(client: bigquery.Client) -> float:
    """The client's per-request deadline (a plain bigquery.Client gets the process's)."""
    return deadline(getattr(client, "deadline_s", None))


def _endpoint(client: bigquery.Client) -> str:
    return getattr(client._connection, "API_BASE_URL", "") or "https://bigquery.googleapis.com"


def is_emulated(client: bigquery.Client) -> bool:
    """True when the client talks to a local endpoint rather than Google's."""
    endpoint = getattr(client._connection, "API_BASE_URL", "") or ""
    return "googleapis.com" not in endpoint


def _retries(client: bigquery.Client) -> tuple[Any, Any]:
    """(request retry, query-job retry): short and none for a local emulator. Made per call
    (they count refusals): a refused connection is retried twice by the request retry and
    never re-runs the job; no answer within the deadline is not retried."""
    request = LOCAL_RETRY if is_emulated(client) else RETRY
    request = request.with_predicate(limit_refusals(request._predicate))
    if is_emulated(client):
        return request, None
    return request, JOB_RETRY.with_predicate(limit_refusals(JOB_RETRY._predicate, retries=0))


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


def _fail(what: str, exc: Exception, client: bigquery.Client | None = None) -> BigQueryError:
    if client is not None and (is_refused(exc) or is_timeout(exc)):
        return BigQueryError(f"{what}: {failure(_endpoint(client), exc, _deadline(client))}")
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
            sql,
            job_config=_job_config(params, max_bytes_billed),
            retry=retry,
            job_retry=job_retry,
            timeout=_deadline(client),
        )
        rows = job.result(retry=retry)
        yield from rows.to_arrow_iterable(bqstorage_client=_storage_client(client))
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail("BigQuery query failed", exc, client) from None


def dry_run_bytes(
    client: bigquery.Client, sql: str, params: Sequence[Param], max_bytes_billed: int
) -> int:
    """The bytes BigQuery says the query would scan (its dry run: nothing runs or is billed)."""
    try:
        retry, _ = _retries(client)
        config = _job_config(params, max_bytes_billed, dry_run=True)
        job = client.query(
            sql, job_config=config, retry=retry, job_retry=None, timeout=_deadline(client)
        )
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail("BigQuery dry run failed", exc, client) from None
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
    project, dataset, _ = table.rsplit(".", 2)  # a domain-scoped project has a "."
    try:
        wait = {"retry": _retries(client)[0], "timeout": _deadline(client)}
        client.create_dataset(f"{project}.{dataset}", exists_ok=True, **wait)
        spec = bigquery.Table(table, schema=[_schema_field(f) for f in fields])
        spec.time_partitioning = bigquery.TimePartitioning(type_=bigquery.TimePartitioningType.DAY)
        client.create_table(spec, exists_ok=True, **wait)
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail(f"creating {table} failed", exc, client) from None


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
            job = client.load_table_from_file(
                fh, table, job_config=config, timeout=_deadline(client)
            )
        job.result(retry=_retries(client)[0])
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail(f"loading {path} into {table} failed", exc, client) from None


# The warehouse's calls (warehouse/bigquery.py): tables in one dataset, Parquet loads, queries
# with bound parameters whose unqualified table names resolve to that dataset.


def _scalar_type(value: Any) -> str:
    if isinstance(value, bool):
        return "BOOL"
    if isinstance(value, int):
        return "INT64"
    if isinstance(value, float):
        return "FLOAT64"
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        places = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        return "NUMERIC" if places <= 9 and abs(value) < Decimal(10) ** 29 else "BIGNUMERIC"
    if isinstance(value, datetime):
        return "TIMESTAMP"
    if isinstance(value, date):
        return "DATE"
    if isinstance(value, bytes):
        return "BYTES"
    return "STRING"


def bind(name: str | None, value: Any) -> Any:
    """One query parameter (`@name`, or `?` when name is None), its type from the value's:
    a list or tuple is an ARRAY of its first non-null element's type (STRING if none)."""
    if isinstance(value, list | tuple):
        first = next((v for v in value if v is not None), None)
        return bigquery.ArrayQueryParameter(name, _scalar_type(first), list(value))
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)  # the warehouse's naive times are UTC
    return bigquery.ScalarQueryParameter(name, _scalar_type(value), value)


def run_query(
    client: bigquery.Client,
    sql: str,
    params: Sequence[Any] | Mapping[str, Any] | None,
    max_bytes_billed: int,
) -> pa.Table:
    """One query job (or DML, or script; tables named in full), its rows as Arrow."""
    if isinstance(params, Mapping):
        bound = [bind(name, value) for name, value in params.items()]
    else:
        bound = [bind(None, value) for value in params or ()]
    config = bigquery.QueryJobConfig(
        query_parameters=bound,
        maximum_bytes_billed=max_bytes_billed,
        labels=JOB_LABELS,
    )
    retry, job_retry = _retries(client)
    try:
        job = client.query(
            sql, job_config=config, retry=retry, job_retry=job_retry, timeout=_deadline(client)
        )
        rows = job.result(retry=retry)
        storage = _storage_client(client)
        return rows.to_arrow(bqstorage_client=storage, create_bqstorage_client=False)
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail("BigQuery query failed", exc, client) from None


# BigQuery's own stop comes this long after the wait gives up and cancels the job: a backstop
# for a client that died waiting, never the stop a person sees.
JOB_TIMEOUT_MARGIN_S = 30


def query_bounded(
    client: bigquery.Client,
    sql: str,
    max_bytes_billed: int,
    timeout_s: float,
    max_rows: int | None,
) -> Iterator[pa.RecordBatch]:
    """One query job held to `timeout_s` (waited for that long, then cancelled; the pages read
    after it finished are held to the same deadline) and `max_rows` rows (the rest never read),
    its rows page by page as they are read: the whole result is never held. BigQueryTimeout at
    the limit, BigQueryError for a refusal."""
    deadline = time.monotonic() + timeout_s
    config = bigquery.QueryJobConfig(
        maximum_bytes_billed=max_bytes_billed,
        labels=JOB_LABELS,
        job_timeout_ms=int((timeout_s + JOB_TIMEOUT_MARGIN_S) * 1000),
    )
    retry, job_retry = _retries(client)
    try:
        job = client.query(sql, job_config=config, retry=retry, job_retry=job_retry)
        try:
            left = max(deadline - time.monotonic(), 0.001)
            rows = job.result(retry=retry, timeout=left, max_results=max_rows)
        except TimeoutError:  # concurrent.futures' (the builtin since 3.11): still running
            _cancel(job, retry)
            raise BigQueryTimeout(_stopped(timeout_s)) from None
        # max_rows: REST reads no more than asked; the Storage Read API would read it all
        storage = _storage_client(client) if max_rows is None else None
        for page in rows.to_arrow_iterable(bqstorage_client=storage):
            yield page
            if time.monotonic() > deadline:
                raise BigQueryTimeout(_stopped(timeout_s))
    except (GoogleAPIError, OSError) as exc:  # OSError: endpoint unreachable
        raise _fail("BigQuery query failed", exc, client) from None


def _cancel(job: Any, retry: Any) -> None:
    """Ask BigQuery to stop the job; should that fail, its job timeout stops it."""
    with contextlib.suppress(GoogleAPIError, OSError):
        job.cancel(retry=retry)


def _stopped(timeout_s: float) -> str:
    return f"BigQuery query stopped at its time limit of {timeout_s:g} s"


def _field(column: Any) -> bigquery.SchemaField:
    """A schema field from a (name, type, mode, description, fields) column."""
    return bigquery.SchemaField(
        column.name,
        column.type,
        mode=column.mode,
        description=column.description or None,  # type: ignore[arg-type]
        fields=[_field(f) for f in column.fields],
        precision=getattr(column, "precision", None),  # type: ignore[arg-type]
        scale=getattr(column, "scale", None),  # type: ignore[arg-type]
    )


def ensure_dataset(client: bigquery.Client, dataset: str, location: str | None) -> None:
    """The dataset, read first and created only if it is not there: the pipeline's documented
    least-privilege role (BigQuery Data Editor on the dataset alone) may not create datasets,
    so a run never asks to (docs/bigquery.md: who creates it, once)."""
    try:
        client.get_dataset(dataset, retry=_retries(client)[0], timeout=_deadline(client))
        return
    except NotFound:
        pass
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"reading dataset {dataset} failed", exc, client) from None
    spec = bigquery.Dataset(dataset)
    if location is not None:
        spec.location = location
    try:
        client.create_dataset(
            spec, exists_ok=True, retry=_retries(client)[0], timeout=_deadline(client)
        )
    except (GoogleAPIError, OSError) as exc:
        raise _fail(
            f"creating dataset {dataset} failed (not there, and this role may not create it: docs/bigquery.md)",
            exc,
            client,
        ) from None


def _found_table(client: bigquery.Client, table: str) -> bigquery.Table | None:
    """`table`'s metadata (no query job, nothing billed); None when it does not exist."""
    try:
        return client.get_table(table, retry=_retries(client)[0], timeout=_deadline(client))
    except NotFound:
        return None
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"reading {table} failed", exc, client) from None


def table_exists(client: bigquery.Client, table: str) -> bool:
    return _found_table(client, table) is not None


# BigQuery reports a legacy type name or its standard one, by how the table was made.
_TYPE_NAMES = {"FLOAT64": "FLOAT", "BOOL": "BOOLEAN", "INT64": "INTEGER", "STRUCT": "RECORD"}


def _fields(fields: Sequence[Any]) -> tuple[tuple[str, str, str, tuple], ...]:
    return tuple(
        (
            f.name,
            _TYPE_NAMES.get(f.field_type.upper(), f.field_type.upper()),
            (f.mode or "NULLABLE").upper(),
            _fields(f.fields or ()),
        )
        for f in fields
    )


def table_fields(client: bigquery.Client, table: str) -> tuple[tuple[str, str, str, tuple], ...]:
    """`table`'s schema as (name, type, mode, subfields) (metadata: nothing billed); () when
    the table does not exist."""
    found = _found_table(client, table)
    return () if found is None else _fields(found.schema)


def table_modified(client: bigquery.Client, table: str) -> str | None:
    """When `table` last changed (its metadata: no query job, nothing billed); None if it does
    not exist. The ETag is added: it changes with every change, even within a millisecond."""
    found = _found_table(client, table)
    if found is None:
        return None
    stamp = found.modified.isoformat() if found.modified is not None else ""
    return f"{stamp}/{found.etag or ''}"


def create_table(
    client: bigquery.Client,
    table: str,
    columns: Sequence[Any],
    description: str,
    partition_by: str | None = None,
    cluster_by: Sequence[str] = (),
) -> None:
    """Create `table` if missing (partitioned by the UTC day of `partition_by`, clustered by
    `cluster_by`); then set its description and its columns' (and add new columns)."""
    spec = bigquery.Table(table, schema=[_field(c) for c in columns])
    spec.description = description
    if partition_by is not None:
        spec.time_partitioning = bigquery.TimePartitioning(
            type_=bigquery.TimePartitioningType.DAY, field=partition_by
        )
    spec.clustering_fields = list(cluster_by) or None
    retry, deadline = _retries(client)[0], _deadline(client)
    try:
        have = client.create_table(spec, exists_ok=True, retry=retry, timeout=deadline)
        known = {f.name for f in have.schema}
        wanted = [_field(c) for c in columns]
        schema = [next((w for w in wanted if w.name == f.name), f) for f in have.schema]
        schema += [w for w in wanted if w.name not in known and w.mode != "REQUIRED"]
        if schema != list(have.schema) or have.description != description:
            have.schema, have.description = schema, description
            client.update_table(have, ["schema", "description"], retry=retry, timeout=deadline)
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"creating {table} failed", exc, client) from None


def expiring_ddl(expiry: timedelta = SCRATCH_EXPIRY) -> str:
    """The OPTIONS clause of a CREATE TABLE whose table BigQuery deletes `expiry` after it is
    made (whole seconds)."""
    seconds = int(expiry.total_seconds())
    return (
        "OPTIONS(expiration_timestamp = "
        f"TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL {seconds} SECOND))"
    )


def load_scratch(
    client: bigquery.Client,
    table: str,
    data: pa.Table,
    columns: Sequence[Any],
    expiry: timedelta = SCRATCH_EXPIRY,
) -> None:
    """A new scratch or staging table: created with an expiry (`Table.expires`, `expiry` from
    now: BigQuery deletes it then if nobody has), then `data` loaded into it, so no moment
    exists when it is there without one."""
    spec = bigquery.Table(table, schema=[_field(c) for c in columns])
    spec.expires = datetime.now(UTC) + expiry
    try:
        client.create_table(spec, retry=_retries(client)[0], timeout=_deadline(client))
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"creating {table} failed", exc, client) from None
    load_parquet(client, table, data, columns, False)


def load_parquet(
    client: bigquery.Client, table: str, data: pa.Table, columns: Sequence[Any], truncate: bool
) -> None:
    """One Parquet load job into `table` (its rows replaced when `truncate`, else appended)."""
    buffer = io.BytesIO()
    pq.write_table(data, buffer)
    buffer.seek(0)
    config = bigquery.LoadJobConfig(
        source_format=bigquery.SourceFormat.PARQUET,
        write_disposition=bigquery.WriteDisposition.WRITE_TRUNCATE
        if truncate
        else bigquery.WriteDisposition.WRITE_APPEND,
        schema=[_field(c) for c in columns],
        parquet_options=_parquet_options(),
    )
    try:
        job = client.load_table_from_file(
            buffer, table, job_config=config, timeout=_deadline(client)
        )
        job.result(retry=_retries(client)[0])
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"loading {data.num_rows} rows into {table} failed", exc, client) from None


def _parquet_options() -> Any:
    options = bigquery.ParquetOptions()
    options.enable_list_inference = True  # a Parquet LIST is a REPEATED field, not a record
    return options


@dataclass(frozen=True)
class TableSchema:
    """A table's description and its columns' (name, type, description), in order."""

    name: str
    description: str
    columns: tuple[tuple[str, str, str], ...]


def dataset_tables(client: bigquery.Client, dataset: str) -> list[TableSchema]:
    """Every table of `dataset` with its schema and descriptions, by name."""
    retry, deadline = _retries(client)[0], _deadline(client)
    out = []
    try:
        for item in client.list_tables(dataset, retry=retry, timeout=deadline):
            table = client.get_table(item.reference, retry=retry, timeout=deadline)
            out.append(
                TableSchema(
                    table.table_id,
                    table.description or "",
                    tuple((f.name, f.field_type, f.description or "") for f in table.schema),
                )
            )
    except NotFound:
        return []
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"listing {dataset} failed", exc, client) from None
    return sorted(out, key=lambda t: t.name)


def table_layout(
    client: bigquery.Client, table: str
) -> tuple[str | None, str | None, tuple[str, ...]] | None:
    """`table`'s (partition column, partition unit, clustering columns), as BigQuery records
    them; None when the table does not exist."""
    found = _found_table(client, table)
    if found is None:
        return None
    parts = found.time_partitioning
    field, unit = (parts.field, parts.type_) if parts is not None else (None, None)
    return field, unit, tuple(found.clustering_fields or ())


def drop_table(client: bigquery.Client, table: str) -> None:
    try:
        client.delete_table(
            table, not_found_ok=True, retry=_retries(client)[0], timeout=_deadline(client)
        )
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"dropping {table} failed", exc, client) from None


def describe_table(
    client: bigquery.Client, table: str, description: str, column_descriptions: Mapping[str, str]
) -> None:
    """Set a table's description and its columns' (those named; others left as they are)."""
    retry, deadline = _retries(client)[0], _deadline(client)
    try:
        have = client.get_table(table, retry=retry, timeout=deadline)
        schema = [
            bigquery.SchemaField(
                f.name,
                f.field_type,
                mode=f.mode,
                description=column_descriptions.get(f.name, f.description),
                fields=f.fields,
            )
            for f in have.schema
        ]
        have.schema, have.description = schema, description
        client.update_table(have, ["schema", "description"], retry=retry, timeout=deadline)
    except (GoogleAPIError, OSError) as exc:
        raise _fail(f"describing {table} failed", exc, client) from None
