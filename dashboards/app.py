"""flopledger's finance dashboards: `flopledger dashboard --config FILE` runs this with Streamlit.

The entry script draws the sign-in gate (when configured), the navigation and the shared
filters, then runs the chosen page. Pages are short files calling `dashboards.views`.
"""

from __future__ import annotations

import streamlit as st

from flopledger.dashboards import auth, sidebar
from flopledger.dashboards.data import NoWarehouse, QueryFailed, config_path
from flopledger.settings import ConfigError, load_config

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
    st.Page("pages/cost_explorer.py", title="Cost explorer", icon=":material/query_stats:"),
    st.Page("pages/chargeback.py", title="Chargeback", icon=":material/account_balance:"),
    st.Page("pages/cost_per_run.py", title="Cost per run", icon=":material/receipt_long:"),
    st.Page(
        "pages/cost_per_million_tokens.py", title="Cost per million tokens", icon=":material/token:"
    ),
    st.Page("pages/idle_capacity.py", title="Idle capacity", icon=":material/hourglass_empty:"),
    st.Page("pages/commitments.py", title="Commitments", icon=":material/handshake:"),
    st.Page(
        "pages/accelerator_efficiency.py", title="Accelerator efficiency", icon=":material/speed:"
    ),
    st.Page("pages/portfolio.py", title="Portfolio", icon=":material/compare_arrows:"),
    st.Page(
        "pages/budgets_and_alerts.py", title="Budgets and alerts", icon=":material/notifications:"
    ),
    st.Page("pages/glossary.py", title="Glossary", icon=":material/menu_book:"),
]


def sign_in_required() -> bool:
    """flopledger.yaml's `dashboard.sign_in` (a config that cannot be read: not required here;
    the pages then say what is wrong)."""
    try:
        return load_config(config_path(), warn=False).dashboard.sign_in
    except ConfigError:
        return False


def main() -> None:
    st.set_page_config(page_title="flopledger", page_icon=":material/payments:", layout="wide")
    auth.gate(required=sign_in_required())
    page = st.navigation(PAGES)
    try:
        sidebar.render()
        page.run()
    except NoWarehouse as exc:
        st.info(f"No published warehouse yet for {exc}. Run `flopledger run --config {exc}` first.")
    except QueryFailed:
        st.error(
            "The warehouse could not answer a query for this page. The details are in the "
            "dashboard's log."
        )


main()
