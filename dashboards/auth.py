"""Optional sign-in with Streamlit's built-in OIDC (`st.login`), on only when configured.

Configure it in `.streamlit/secrets.toml` beside the config file (see docs/dashboards.md):
an `[auth]` table with `redirect_uri`, `cookie_secret` and either the provider's
`client_id`, `client_secret`, `server_metadata_url`, or one named provider sub-table.
"""

from __future__ import annotations

from typing import Any

import streamlit as st


def _auth_secrets() -> dict[str, Any] | None:
    try:
        return dict(st.secrets["auth"]) if "auth" in st.secrets else None
    except Exception:  # noqa: BLE001 - no secrets file: sign-in is off
        return None


def provider(auth: dict[str, Any]) -> str | None:
    """The named provider to use, when `[auth]` holds provider sub-tables instead of one."""
    if "client_id" in auth:
        return None
    named = [key for key, value in auth.items() if isinstance(value, dict)]
    return named[0] if named else None


def gate(required: bool = False) -> None:
    """Stop the page for a signed-out user when sign-in is configured; no-op otherwise.

    `required` (flopledger.yaml `dashboard.sign_in: true`) fails closed: without an `[auth]`
    table in the secrets, no page is shown."""
    auth = _auth_secrets()
    if auth is None:
        if required:
            st.error(
                "flopledger.yaml sets dashboard.sign_in, but .streamlit/secrets.toml has no "
                "[auth] table: see docs/dashboards.md."
            )
            st.stop()
        return
    if not st.user.is_logged_in:
        st.title("flopledger")
        st.write("Sign in to see the cost dashboards.")
        name = provider(auth)
        st.button("Sign in", on_click=st.login, args=(name,) if name else ())
        st.stop()
    st.sidebar.caption(f"Signed in as {st.user.get('email') or st.user.get('name')}")
    st.sidebar.button("Sign out", on_click=st.logout)
