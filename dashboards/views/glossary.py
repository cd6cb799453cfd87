"""Glossary: one name and one definition per figure (figures/__init__.py, docs/glossary.md);
pages link here (components.definition_link)."""

from __future__ import annotations

import streamlit as st

from flopledger.figures import FIGURES


def render() -> None:
    st.title("Glossary")
    st.caption(
        "Every page, the CLI, alerts and budgets use these names with these meanings "
        "(docs/glossary.md)."
    )
    for f in FIGURES:
        st.header(f.name, anchor=f.anchor)
        st.markdown(f"{f.definition}  \nSource: `{f.source}`.")
