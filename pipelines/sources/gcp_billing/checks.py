"""Checks on this source's tables: none of its own (quarantine counts are checked on `books`)."""

import dagster as dg


def build_checks() -> list[dg.AssetChecksDefinition]:
    return []
