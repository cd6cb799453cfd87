"""The filesystem checks `load_config` makes of the config's paths, before anything runs.

Each says why a path will not do, or None. A path a run creates (the warehouse file, its
folder, dagster_home) need not exist yet: only the nearest folder that does exist is looked at,
and whether a folder can be made in it is tried (a folder made and removed at once, since a
permission check alone says yes to root, and /proc refuses whatever the permissions say).
What exists already need only be what it should be (a file, a folder) and readable: the
readers (`flopledger sql`, the dashboards) load the same config from read-only mounts, and a
run that cannot write there says so when it opens the warehouse.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def file_problem(value: str) -> str | None:
    """Why an existing `value` is not a file to read (a folder, a device, a pipe)."""
    path = Path(value)
    if path.is_dir():
        return f"{value} is a folder, not a file"
    if path.exists() and not path.is_file():
        return f"{value} is not a regular file"
    return None


def warehouse_file_problem(value: str) -> str | None:
    """Why DuckDB could not keep its warehouse at `value`: it must be a readable regular file,
    or not be there yet in a folder that exists or can be made."""
    path = Path(value)
    if path.exists() or path.is_symlink():
        if not path.is_file():
            return f"{value} is not a regular file (a DuckDB file, or a path not there yet)"
        if not os.access(path, os.R_OK):
            return f"{value} cannot be read"
        return None
    return folder_problem(str(path.parent))


def folder_problem(value: str) -> str | None:
    """Why `value` is neither a folder nor one that can be made."""
    path = Path(value)
    if path.exists():
        return None if path.is_dir() else f"{value} is not a folder"
    ancestor = next(p for p in path.parents if p.exists())  # the root always exists
    if not ancestor.is_dir():
        return f"{value} cannot be made: {ancestor} is not a folder"
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".flopledger-check-", dir=ancestor))
    except OSError as exc:
        return f"{value} cannot be made in {ancestor} ({exc.strerror})"
    return None
