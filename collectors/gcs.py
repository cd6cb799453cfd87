"""The one door to Cloud Storage: a `google.cloud.storage.Client` from endpoint and credentials.

`from google.cloud import storage` happens here and nowhere else in flopledger. Like
Google's own clients, `STORAGE_EMULATOR_HOST` (or an explicit `endpoint`) points it at a
local emulator, with anonymous credentials; otherwise application-default credentials.

Every call has a deadline (`deadline_s`: no answer for that long is an error, not retried)
and a refused connection is retried twice, quickly, then said (clients/network.py): a
`gs://` path on an endpoint nobody listens on fails in seconds, not after the client's
two-minute default retry.
"""

from __future__ import annotations

import os
from typing import Any

from flopledger.clients.network import deadline, failure, limit_refusals

EMULATOR_ENV = "STORAGE_EMULATOR_HOST"


def parse_gs_uri(uri: str) -> tuple[str, str]:
    """`gs://bucket/some/prefix` -> (`bucket`, `some/prefix`)."""
    if not uri.startswith("gs://") or len(uri) <= 5:
        raise ValueError(f"not a gs:// URI: {uri!r}")
    bucket, _, prefix = uri[5:].partition("/")
    if not bucket:
        raise ValueError(f"no bucket in {uri!r}")
    return bucket, prefix.strip("/")


def storage_client(
    endpoint: str | None = None, credentials: Any | None = None, project: str | None = None
) -> Any:
    """A storage client: `endpoint` (else $STORAGE_EMULATOR_HOST) for a local emulator."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    endpoint = endpoint or os.environ.get(EMULATOR_ENV)
    if endpoint is None:  # no project given: the client finds it as Google's own tools do
        given = {"project": project} if project is not None else {}
        return storage.Client(credentials=credentials, **given)
    return storage.Client(
        project=project or "local",
        credentials=credentials or AnonymousCredentials(),
        client_options={"api_endpoint": endpoint},
    )


def _retry() -> Any:
    """The client's own retry (transient errors for two minutes), refusals and silence cut
    short: one per call, since it counts refusals."""
    from google.cloud.storage.retry import DEFAULT_RETRY

    return DEFAULT_RETRY.with_predicate(limit_refusals(DEFAULT_RETRY._predicate))


def _unreachable(client: Any, exc: Exception, deadline_s: float) -> str:
    """`<endpoint>: connection refused ...` (or the error's first line)."""
    endpoint = getattr(client, "api_endpoint", None) or "https://storage.googleapis.com"
    return failure(str(endpoint), exc, deadline_s)


class StorageError(Exception):
    """A Cloud Storage problem, said in one line (bucket missing, no permission, object gone)."""


class ObjectVanished(StorageError):
    """An object listed a moment ago is no longer there (deleted, or replaced by a newer one)."""


def list_objects(
    client: Any, bucket: str, prefix: str, deadline_s: float | None = None
) -> list[tuple[str, int, str]]:
    """(name, size, generation) of every object under `prefix`, in name order; one-line errors.
    `deadline_s`: the process's (clients/network.py) unless given."""
    from google.api_core import exceptions

    deadline_s = deadline(deadline_s)

    where = f"gs://{bucket}/{prefix}"
    try:
        blobs = list(
            client.list_blobs(bucket, prefix=prefix or None, timeout=deadline_s, retry=_retry())
        )
    except exceptions.NotFound:
        raise StorageError(f"gs://{bucket}: bucket does not exist") from None
    except exceptions.Forbidden:
        raise StorageError(
            f"{where}: permission denied listing objects (needs storage.objects.list, "
            "e.g. roles/storage.objectViewer on the bucket)"
        ) from None
    except (exceptions.GoogleAPIError, OSError) as exc:  # OSError: the endpoint unreachable
        raise StorageError(
            f"{where}: cannot list: {_unreachable(client, exc, deadline_s)}"
        ) from None
    found = [(b.name, int(b.size or 0), str(b.generation)) for b in blobs]
    return sorted(found)


def list_folder(
    client: Any, bucket: str, folder: str, deadline_s: float | None = None
) -> tuple[list[tuple[str, int, str]], list[str]]:
    """One level of `folder` (ending in `/`): its own objects (name, size, generation) and its
    sub-folders (`folder/sub/`), each in name order; one-line errors as `list_objects`."""
    from google.api_core import exceptions

    deadline_s = deadline(deadline_s)

    where = f"gs://{bucket}/{folder}"
    try:
        pages = client.list_blobs(
            bucket, prefix=folder, delimiter="/", timeout=deadline_s, retry=_retry()
        )
        blobs = list(pages)
        folders = sorted(pages.prefixes)
    except exceptions.NotFound:
        raise StorageError(f"gs://{bucket}: bucket does not exist") from None
    except exceptions.Forbidden:
        raise StorageError(
            f"{where}: permission denied listing objects (needs storage.objects.list, "
            "e.g. roles/storage.objectViewer on the bucket)"
        ) from None
    except (exceptions.GoogleAPIError, OSError) as exc:  # OSError: the endpoint unreachable
        raise StorageError(
            f"{where}: cannot list: {_unreachable(client, exc, deadline_s)}"
        ) from None
    return sorted((b.name, int(b.size or 0), str(b.generation)) for b in blobs), folders


def download_object(
    client: Any,
    bucket: str,
    name: str,
    generation: str,
    dest: str,
    deadline_s: float | None = None,
) -> None:
    """That generation of the object into the file `dest`; one-line errors. The deadline
    bounds each wait for bytes, not the whole download."""
    from google.api_core import exceptions

    deadline_s = deadline(deadline_s)

    where = f"gs://{bucket}/{name}"
    try:
        blob = client.bucket(bucket).blob(name, generation=int(generation))
        blob.download_to_filename(dest, timeout=deadline_s, retry=_retry())
    except exceptions.NotFound:
        raise ObjectVanished(
            f"{where}: vanished between listing and reading (generation {generation} is gone)"
        ) from None
    except exceptions.Forbidden:
        raise StorageError(
            f"{where}: permission denied reading (needs storage.objects.get, "
            "e.g. roles/storage.objectViewer on the bucket)"
        ) from None
    except (exceptions.GoogleAPIError, OSError) as exc:  # OSError: the endpoint unreachable
        raise StorageError(
            f"{where}: cannot read: {_unreachable(client, exc, deadline_s)}"
        ) from None


def reader_client(endpoint: str | None = None) -> Any:
    """`storage_client()` for reading inputs; missing credentials said in one line."""
    from google.auth import exceptions

    try:
        return storage_client(endpoint)
    except exceptions.DefaultCredentialsError:
        raise StorageError(
            "gs:// paths need Google credentials: run `gcloud auth application-default login`, "
            f"set GOOGLE_APPLICATION_CREDENTIALS, or set {EMULATOR_ENV} for an emulator"
        ) from None
