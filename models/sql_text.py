"""Reading SQL text as the loaders need it: without its `--` comments (string literals kept as
they are), and the `$name` parameters it binds (not those in comments or string literals)."""

from __future__ import annotations

import re

_COMMENT_OR_STRING = re.compile(r"'(?:[^']|'')*'|--[^\n]*")
_STRING = re.compile(r"'(?:[^']|'')*'")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def without_comments(sql: str) -> str:
    """The SQL without its `--` comments; a `--` inside a string literal is kept."""
    return _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0)[0] == "'" else "", sql)


def named_params(sql: str) -> frozenset[str]:
    """The `$name` parameters the SQL binds."""
    return frozenset(_PARAM.findall(_STRING.sub("''", without_comments(sql))))
