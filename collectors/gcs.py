"""The one door to Cloud Storage: a `google.cloud.storage.Client` from endpoint and credentials.

`from google.cloud import storage` happens here and nowhere else in flopledger. Like
Google's own clients, `STORAGE_EMULATOR_HOST` (or an explicit `endpoint`) points it at a
local emulator, with anonymous credentials; otherwise application-default credentials.
"""

from __future__ import annotations

import os
from typing import Any

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
