"""Input files where they live: local paths and globs, or `gs://` ones; listed once, read once.

A source's configured paths (local or `gs://`, plain, folders or globs) become one listing
of `InputObject`s: where it is, its size, its generation (remote), and the UTC day its name
says (`dt=YYYY-MM-DD/` folders, `YYYY-MM-DD` folders or names, `YYYYMMDDTHHMMSSZ` stamps).
`for_days` keeps the objects a day window may need, by name alone.

Readers take local paths and never ask where a file came from: a local file is itself; a
remote object is downloaded once into the input cache and handed over as a `RemoteCopy`, a
path to the copy whose `str()` is the object's `gs://` URI, so quarantine rows and
`source_file` columns name where the row really came from.

The cache (`InputCache`, a folder beside the warehouse) holds:
- `objects/<bucket>/<name>`: the copies;
- `taken/<bucket>/<hash>.json`: each object taken, with its generation and size. A later run
  that lists the same generation reads the copy and downloads nothing; a new generation (an
  object rewritten) is downloaded again. The record sits beside the copy it describes (not
  in the warehouse) so the two cannot disagree: delete the folder and both are gone, and the
  next run downloads afresh;
- `runs/<run key>/<hash>.json`: a run's listing of one set of paths, so that every step of
  one run (and every day of a backfill) lists each path once. Listings of runs older than a
  day are removed.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path, PosixPath
from typing import Any

from collectors.gcs import ObjectVanished, download_object, list_objects, parse_gs_uri

GLOB_CHARS = frozenset("*?[")
RUN_LISTINGS_KEPT_S = 24 * 3600
# A file system takes 255 bytes per name; a copy's `.partial` name adds its own and the pid,
# so a longer part of an object's name (Cloud Storage allows 1,024 bytes) becomes a digest.
SEGMENT_BYTES_MAX = 200
NAME_BYTES_MAX = 1024

_DT_FOLDER = re.compile(r"dt=(\d{4})-(\d{2})-(\d{2})")
_STAMP = re.compile(r"(?<!\d)(\d{4})(\d{2})(\d{2})T\d{6}Z")
_ISO_DAY = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


@dataclass(frozen=True)
class InputObject:
    """One file or object a source's paths match."""

    uri: str  # an absolute local path, or gs://bucket/name
    size: int
    generation: str | None = None  # remote objects only
    day: date | None = None  # the UTC day its name says, if it says one

    @property
    def remote(self) -> bool:
        return self.uri.startswith("gs://")


@dataclass
class Listing:
    """What a set of paths matched, and one warning line per path that matched nothing."""

    objects: list[InputObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class RemoteCopy(PosixPath):
    """A downloaded object's local copy: opened and read as that file, named by its URI.

    `os.fspath()` (what `open`, `stat` and pyarrow use) is the copy; `str()` is `gs://...`."""

    _uri: str | None = None

    @classmethod
    def of(cls, local: Path, uri: str) -> RemoteCopy:
        copy = cls(local)
        copy._uri = uri
        return copy

    def __str__(self) -> str:
        return self._uri or super().__str__()

    def __fspath__(self) -> str:
        return super().__str__()

    def __repr__(self) -> str:
        return f"RemoteCopy({str(self)!r})"


def day_of(name: str) -> date | None:
    """The UTC day an object's name says: a stamp or ISO day in its last part, else the
    nearest `dt=YYYY-MM-DD` or `YYYY-MM-DD` folder above it (None when none, or impossible)."""
    folders, _, last = name.rpartition("/")
    match = _STAMP.search(last) or _ISO_DAY.search(last)
    for folder in reversed(folders.split("/")) if match is None else ():
        match = _DT_FOLDER.fullmatch(folder) or _ISO_DAY.fullmatch(folder)
        if match:
            break
    if match is None:
        return None
    try:
        return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None


def for_days(objects: list[InputObject], days: list[date], slack_days: int) -> list[InputObject]:
    """Objects that may hold rows of `days`: undated ones, and those named for a day in
    [first day - slack_days, last day] (a file named by its first minute runs into the next)."""
    first, last = min(days) - timedelta(days=slack_days), max(days)
    return [o for o in objects if o.day is None or first <= o.day <= last]


# -- listing ---------------------------------------------------------------------------


def list_inputs(patterns: Iterable[str], client: Callable[[], Any]) -> Listing:
    """Every file or object the paths match, each once, in URI order. `client()` gives the
    storage client (called only if a `gs://` path is given). Raises `StorageError` (one line)
    for a missing bucket or a refused listing."""
    listing = Listing()
    seen: dict[str, InputObject] = {}
    for pattern in patterns:
        found = (
            _list_remote(pattern, client()) if pattern.startswith("gs://") else _list_local(pattern)
        )
        if not found:
            listing.warnings.append(f"{pattern}: matches nothing")
        seen.update((o.uri, o) for o in found)
    listing.objects = [seen[uri] for uri in sorted(seen)]
    return listing


def _list_local(pattern: str) -> list[InputObject]:
    path = Path(pattern)
    if path.is_dir():
        files, base = [p for p in path.rglob("*") if p.is_file()], f"{path}/"
    else:
        files = [Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file()]
        base = _base(pattern)
    return [
        InputObject(str(p), p.stat().st_size, None, day_of(str(p).removeprefix(base)))
        for p in files
    ]


def _list_remote(pattern: str, client: Any) -> list[InputObject]:
    bucket, path = parse_gs_uri(pattern)
    literal = _literal_prefix(path)
    if literal == path:  # no glob: the object itself, or every object under the folder
        objects = list_objects(client, bucket, path)
        exact = [o for o in objects if o[0] == path]
        chosen = exact or [o for o in objects if not path or o[0].startswith(path + "/")]
    else:
        match = _glob_regex(path).fullmatch
        chosen = [o for o in list_objects(client, bucket, literal) if match(o[0])]
    base = f"{path}/" if literal == path else _base(path)
    return [
        InputObject(f"gs://{bucket}/{name}", size, generation, day_of(name.removeprefix(base)))
        for name, size, generation in chosen
        if not name.endswith("/")  # a "folder" placeholder object
    ]


def _base(pattern: str) -> str:
    """The folder a pattern names literally: its day is not the files' (a dated backup of a
    whole tree says nothing of the days inside), so days are read below it."""
    literal = _literal_prefix(pattern)
    return literal if literal.endswith("/") else literal.rpartition("/")[0] + "/"


def _literal_prefix(path: str) -> str:
    """The part of a path before its first glob character: what the listing can ask for."""
    cut = min((path.index(c) for c in GLOB_CHARS if c in path), default=len(path))
    return path[:cut]


def _glob_regex(path: str) -> re.Pattern[str]:
    """A glob as a regex over object names: `**/` any folders (or none), `*` and `?` within
    one folder, `[...]` a character class."""
    out, i = [], 0
    while i < len(path):
        if path.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif path.startswith("**", i):
            out.append(".*")
            i += 2
        elif path[i] == "*":
            out.append("[^/]*")
            i += 1
        elif path[i] == "?":
            out.append("[^/]")
            i += 1
        elif path[i] == "[" and "]" in path[i + 2 :]:
            end = path.index("]", i + 2)
            body = path[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(path[i]))
            i += 1
    return re.compile("".join(out))


# -- the cache -------------------------------------------------------------------------


@dataclass
class Fetched:
    """Local paths for a listing's objects, what was downloaded, and what could not be read."""

    paths: list[Path] = field(default_factory=list)
    downloaded: int = 0
    reused: int = 0
    warnings: list[str] = field(default_factory=list)


class InputCache:
    """Copies of remote objects and the record of what was taken, in one folder."""

    def __init__(self, root: str | Path, client: Callable[[], Any]) -> None:
        self.root = Path(root)
        self._make_client = client
        self._made: Any | None = None

    def _client(self) -> Any:
        """The storage client, made on first need (a local-only run never makes one)."""
        if self._made is None:
            self._made = self._make_client()
        return self._made

    def listing(self, patterns: list[str], run_key: str | None) -> Listing:
        """The paths' listing, made once per `run_key` (every call of the run reuses it)."""
        if run_key is None:
            return list_inputs(patterns, self._client)
        saved = self._run_dir(run_key) / f"{_digest(json.dumps(patterns))}.json"
        if saved.is_file():
            return _listing_from_json(saved.read_text())
        listing = list_inputs(patterns, self._client)
        _write_atomic(saved, json.dumps(_listing_to_json(listing)))
        return listing

    def fetch(self, objects: list[InputObject]) -> Fetched:
        """A local path for each object: remote ones downloaded unless already taken."""
        fetched = Fetched()
        for obj in objects:
            if not obj.remote:
                fetched.paths.append(Path(obj.uri))
                continue
            try:
                local, downloaded = self._copy(obj)
            except ObjectVanished as exc:
                fetched.warnings.append(str(exc))
                continue
            fetched.paths.append(RemoteCopy.of(local, obj.uri))
            fetched.downloaded += downloaded
            fetched.reused += not downloaded
        return fetched

    def _copy(self, obj: InputObject) -> tuple[Path, bool]:
        bucket, _, name = obj.uri.removeprefix("gs://").partition("/")  # the name as listed
        local = _copy_path(self.root / "objects" / bucket, name)
        record = self.root / "taken" / bucket / f"{_digest(name)}.json"
        if local.is_file() and record.is_file():
            taken = json.loads(record.read_text())
            if taken.get("generation") == obj.generation and local.stat().st_size == obj.size:
                return local, False
        local.parent.mkdir(parents=True, exist_ok=True)
        partial = local.with_name(f".{local.name}.{os.getpid()}.partial")
        try:
            download_object(self._client(), bucket, name, str(obj.generation), str(partial))
            os.replace(partial, local)
        finally:
            partial.unlink(missing_ok=True)
        taken = {"uri": obj.uri, "generation": obj.generation, "size": obj.size}
        _write_atomic(record, json.dumps(taken))
        return local, True

    def _run_dir(self, run_key: str) -> Path:
        runs = self.root / "runs"
        here = runs / _safe_segment(run_key)
        if not here.is_dir():
            _remove_old_runs(runs)
            here.mkdir(parents=True, exist_ok=True)
        return here


def _remove_old_runs(runs: Path) -> None:
    if not runs.is_dir():
        return
    cutoff = time.time() - RUN_LISTINGS_KEPT_S
    for old in runs.iterdir():
        if old.is_dir() and old.stat().st_mtime < cutoff:
            shutil.rmtree(old, ignore_errors=True)


def _copy_path(top: Path, name: str) -> Path:
    """Where the copy of object `name` goes under `top`: the name itself when it is a safe
    relative path that no other copy blocks (`a` and `a/b` may both be objects), else a
    digest folder."""
    local = top / _safe_name(name)
    blocked = local.is_dir() or any(
        p.exists() and not p.is_dir() for p in local.parents if p.is_relative_to(top) and p != top
    )
    if not blocked:
        return local
    return top / "_unsafe" / _digest(name) / _safe_segment(local.name)


def _safe_segment(text: str) -> str:
    """One path part of plain characters, at most SEGMENT_BYTES_MAX long: a longer one is a
    digest of it, keeping a short extension (readers tell formats by it)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", text).lstrip(".")
    if not safe:
        return _digest(text)
    if len(safe) <= SEGMENT_BYTES_MAX:
        return safe
    stem, dot, ext = safe.rpartition(".")
    return _digest(text) + (f".{ext}" if dot and stem and len(ext) <= 16 else "")


def _safe_name(name: str) -> str:
    """The object's name as a relative path when it is a safe one (no `..`, `.` or empty
    folder, no leading `/`, no part too long for a file system); else a digest folder and its
    last part (itself a digest when too long), so no name escapes the cache or fails to fit."""
    parts = name.split("/")
    fits = all(len(p.encode()) <= SEGMENT_BYTES_MAX for p in parts)
    if (
        fits
        and len(name.encode()) <= NAME_BYTES_MAX
        and all(p not in ("", ".", "..") for p in parts)
    ):
        return name
    last = _safe_segment(parts[-1]) if parts[-1] not in ("", ".", "..") else "object"
    return f"_unsafe/{_digest(name)}/{last}"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _listing_to_json(listing: Listing) -> dict[str, Any]:
    objects = [{**asdict(o), "day": o.day.isoformat() if o.day else None} for o in listing.objects]
    return {"objects": objects, "warnings": listing.warnings}


def _listing_from_json(text: str) -> Listing:
    data = json.loads(text)
    objects = [
        InputObject(
            o["uri"], o["size"], o["generation"], date.fromisoformat(o["day"]) if o["day"] else None
        )
        for o in data["objects"]
    ]
    return Listing(objects, data["warnings"])
