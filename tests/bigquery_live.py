"""When the `bigquery_live` tests run: a real project named by $FLOPLEDGER_BIGQUERY_LIVE_PROJECT
and Google's application-default credentials (`gcloud auth application-default login`, or a
key file named by $GOOGLE_APPLICATION_CREDENTIALS). Without either they are skipped, with the
reason; tests/conftest.py applies it at collection. Each live test works in a dataset of its
own (`flopledger_test_<random>`, location $FLOPLEDGER_BIGQUERY_LIVE_LOCATION, default US) and
deletes it afterwards; its jobs bill that project (a few MB: the smallest fleet)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

LIVE_ENV = "FLOPLEDGER_BIGQUERY_LIVE_PROJECT"
LOCATION_ENV = "FLOPLEDGER_BIGQUERY_LIVE_LOCATION"


def credentials_problem() -> str | None:
    """Why application-default credentials are not there (None when they are)."""
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        google.auth.default()
    except DefaultCredentialsError as exc:
        return str(exc).strip().splitlines()[0]
    return None


def skip_reason(
    environ: Mapping[str, str], credentials: Callable[[], str | None] = credentials_problem
) -> str | None:
    """Why the live tests cannot run here, or None. Credentials are looked for only once a
    project is named (looking may wait on a metadata server)."""
    if not environ.get(LIVE_ENV):
        return f"set {LIVE_ENV} to a Google Cloud project (with application-default credentials)"
    problem = credentials()
    if problem is not None:
        return f"no application-default credentials for {environ[LIVE_ENV]}: {problem}"
    return None


def drop_dataset(client: Any, dataset: str) -> None:
    """Delete `project.dataset` and every table in it (a live test's own dataset, afterwards)."""
    client.delete_dataset(dataset, delete_contents=True, not_found_ok=True)
