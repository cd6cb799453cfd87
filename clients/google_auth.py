"""Whether Google's application-default credentials can be found (`flopledger doctor`): the
key file $GOOGLE_APPLICATION_CREDENTIALS names, gcloud's application-default login, or the
metadata server of a Google Cloud machine. A client here imports no room of flopledger."""

from __future__ import annotations

import google.auth
from google.auth.exceptions import DefaultCredentialsError


def credentials_problem() -> str | None:
    """Why no credentials can be found (one line), or None when they can."""
    try:
        google.auth.default()
    except DefaultCredentialsError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "none found"
        return (
            "no Google credentials: run `gcloud auth application-default login` or set "
            f"GOOGLE_APPLICATION_CREDENTIALS to a service-account key file ({first[:200]})"
        )
    return None
