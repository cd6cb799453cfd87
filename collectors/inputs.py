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
- `runs/<run key>/<hash>.json`: a run's listing of one set of paths (of its days only, where
  the layout is in day folders), so that every step of one run lists each path once.
  Listings of runs older than a day are removed.

Copies no run reads any more are pruned (`InputCache.prune`, `warehouse.input_cache_days`).
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
from datetime import UTC, date, datetime, timedelta
from pathlib import Path, PosixPath
from typing import Any

from flopledger.collectors.gcs import (
    ObjectVanished,
    download_object,
    list_folder,
    list_objects,
    parse_gs_uri,
)
from flopledger.paths import GLOB_CHARS, is_glob

RUN_LISTINGS_KEPT_S = 24 * 3600
# A file system takes 255 bytes per name; a copy's `.partial` name adds its own and the pid,
# so a longer part of an object's name (Cloud Storage allows 1,024 bytes) becomes a digest.
SEGMENT_BYTES_MAX = 200
NAME_BYTES_MAX = 1024
CACHE_KEEP_DAYS = 35  # warehouse.input_cache_days
READ_RECENTLY_S = 2 * 24 * 3600  # a copy read this recently is in use whatever its day

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
    modified_ns: int | None = None  # local files only: when it was last written

    @property
    def fingerprint(self) -> str:
        """What changes when the file or object is rewritten: its size, and its generation
        (remote) or modification time (local)."""
        return f"{self.size}:{self.generation if self.remote else self.modified_ns}"

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


def window_days(days: list[date], slack_days: int) -> list[date]:
    """Every day `for_days` keeps objects of: first day - slack_days .. last day."""
    first, last = min(days) - timedelta(days=slack_days), max(days)
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


# -- listing ---------------------------------------------------------------------------


def list_inputs(
    patterns: Iterable[str], client: Callable[[], Any], days: list[date] | None = None
) -> Listing:
    """Every file or object the paths match, each once, in URI order. `client()` gives the
    storage client (called only if a `gs://` path is given). With `days`, a remote path laid
    out in `dt=YYYY-MM-DD/` folders lists only those days' folders (and whatever is not in a
    `dt=` folder), so a run's listing does not grow with the bucket's history. Raises
    `StorageError` (one line) for a missing bucket or a refused listing."""
    listing = Listing()
    seen: dict[str, InputObject] = {}
    for pattern in patterns:
        found = (
            _list_remote(pattern, client(), days)
            if pattern.startswith("gs://")
            else _list_local(pattern)
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
    stats = [(p, p.stat()) for p in files]
    return [
        InputObject(str(p), st.st_size, None, day_of(str(p).removeprefix(base)), st.st_mtime_ns)
        for p, st in stats
    ]


def _list_remote(pattern: str, client: Any, days: list[date] | None = None) -> list[InputObject]:
    bucket, path = parse_gs_uri(pattern)
    literal = _literal_prefix(path)
    if literal == path:  # no glob: the object itself, or every object under the folder
        by_day = _list_folder_by_day(client, bucket, path, days) if days else None
        objects = list_objects(client, bucket, path) if by_day is None else by_day
        exact = [o for o in objects if o[0] == path]
        chosen = exact or [o for o in objects if not path or o[0].startswith(path + "/")]
    else:
        match = _glob_regex(path).fullmatch
        prefixes = _day_prefixes(path, days) if days else None
        by_day = (
            _list_folder_by_day(client, bucket, literal.removesuffix("/"), days)
            if days
            and prefixes is None
            and path[len(literal) :].startswith("**/")
            and (literal == "" or literal.endswith("/"))
            else None
        )
        if prefixes is not None:
            listed = [o for prefix in prefixes for o in list_objects(client, bucket, prefix)]
        else:
            listed = list_objects(client, bucket, literal) if by_day is None else by_day
        chosen = [o for o in listed if match(o[0])]
    base = f"{path}/" if literal == path else _base(path)
    return [
        InputObject(f"gs://{bucket}/{name}", size, generation, day_of(name.removeprefix(base)))
        for name, size, generation in chosen
        if not name.endswith("/")  # a "folder" placeholder object
    ]


def _day_prefixes(path: str, days: list[date]) -> list[str] | None:
    """The per-day folders to list for a glob whose first wildcard part is a `dt=` folder
    (`nvml/dt=*/*.parquet`): `nvml/dt=<day>/` for each of `days` the part matches; None
    for any other glob (listed whole)."""
    parts = path.split("/")
    at = next(i for i, part in enumerate(parts) if is_glob(part))
    part = parts[at]
    if not part.startswith("dt=") or "**" in part or at == len(parts) - 1:
        return None
    above = "".join(f"{p}/" for p in parts[:at])
    fits = _glob_regex(part).fullmatch
    return [f"{above}dt={d.isoformat()}/" for d in sorted(set(days)) if fits(f"dt={d.isoformat()}")]


def _list_folder_by_day(
    client: Any, bucket: str, path: str, days: list[date]
) -> list[tuple[str, int, str]] | None:
    """Everything under folder `path` that `days` may need, listing a day sub-folder
    (`dt=YYYY-MM-DD/` or `YYYY-MM-DD/`) only for a day in `days` (one request sees the
    folder's own objects and its sub-folders; any other sub-folder is listed whole). A day
    folder holds that day's objects, as the agent and the Monitoring saver write them. None
    when nothing is under it (it may be an object: the caller lists it plainly)."""
    top, folders = list_folder(client, bucket, f"{path}/" if path else "")
    if not top and not folders:
        return None
    wanted = {d.isoformat() for d in days}
    found = list(top)
    for folder in folders:
        last = folder.removesuffix("/").rpartition("/")[2]
        match = _DT_FOLDER.fullmatch(last) or _ISO_DAY.fullmatch(last)
        if match and _is_day(match) and "-".join(match.groups()) not in wanted:
            continue  # a day the run does not read
        found += list_objects(client, bucket, folder)
    return found


def _is_day(match: re.Match[str]) -> bool:
    try:
        date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return True


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
    """Copies of remote objects and the record of what was taken, in one folder.

    Copies are pruned once a run (see `prune`): the cache holds what recent runs read, not
    the bucket's history."""

    def __init__(
        self, root: str | Path, client: Callable[[], Any], keep_days: int = CACHE_KEEP_DAYS
    ) -> None:
        self.root = Path(root)
        self.keep_days = keep_days
        self._make_client = client
        self._made: Any | None = None

    def _client(self) -> Any:
        """The storage client, made on first need (a local-only run never makes one)."""
        if self._made is None:
            self._made = self._make_client()
        return self._made

    def listing(
        self, patterns: list[str], run_key: str | None, days: list[date] | None = None
    ) -> Listing:
        """The paths' listing (of `days` only where the layout allows, see `list_inputs`),
        made once per `run_key` (every call of the run for the same days reuses it)."""
        if run_key is None:
            return list_inputs(patterns, self._client, days)
        key = [patterns, sorted({d.isoformat() for d in days})] if days else patterns
        saved = self._run_dir(run_key) / f"{_digest(json.dumps(key))}.json"
        whole = self._run_dir(run_key) / f"{_digest(json.dumps(patterns))}.json"
        for made in (saved, whole):  # this run's listing of every day serves any day
            if made.is_file():
                return _listing_from_json(made.read_text())
        listing = list_inputs(patterns, self._client, days)
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
                os.utime(record)  # read now: `prune` keeps what is still read
                return local, False
        local.parent.mkdir(parents=True, exist_ok=True)
        partial = local.with_name(f".{local.name}.{os.getpid()}.partial")
        try:
            download_object(self._client(), bucket, name, str(obj.generation), str(partial))
            os.replace(partial, local)
        finally:
            partial.unlink(missing_ok=True)
        taken = {
            "uri": obj.uri,
            "generation": obj.generation,
            "size": obj.size,
            "day": obj.day.isoformat() if obj.day else None,
            "copy": local.relative_to(self.root).as_posix(),
        }
        _write_atomic(record, json.dumps(taken))
        return local, True

    def prune(self, now: float | None = None) -> int:
        """Remove copies (and their records) no run needs any more: those whose object's day
        is more than `keep_days` before today and that were not read in the last two days
        (a source that reads old objects whole, as billing does, keeps them), and those not
        read for `keep_days` whatever their day. Returns how many were removed; the next run
        that needs one downloads it again."""
        now = time.time() if now is None else now
        first_kept = datetime.fromtimestamp(now, UTC).date() - timedelta(days=self.keep_days)
        removed = 0
        for record in sorted((self.root / "taken").glob("*/*.json")):
            try:
                taken = json.loads(record.read_text())
                idle = now - record.stat().st_mtime
                day = date.fromisoformat(taken["day"]) if taken.get("day") else None
            except (OSError, ValueError, KeyError, TypeError):
                continue  # a record being written, or not one of ours: left alone
            old_day = day is not None and day < first_kept and idle > READ_RECENTLY_S
            if not old_day and idle <= self.keep_days * 24 * 3600:
                continue
            if isinstance(taken.get("copy"), str):
                copy = self.root / taken["copy"]
            else:  # a record written before copies were recorded: where the name puts it
                bucket, _, name = str(taken.get("uri", "")).removeprefix("gs://").partition("/")
                copy = self.root / "objects" / bucket / _safe_name(name)
            if copy.resolve().is_relative_to((self.root / "objects").resolve()):
                copy.unlink(missing_ok=True)
            record.unlink(missing_ok=True)
            removed += 1
        return removed

    def _run_dir(self, run_key: str) -> Path:
        runs = self.root / "runs"
        here = runs / _safe_segment(run_key)
        if not here.is_dir():  # a run's first listing: tidy up after earlier runs
            _remove_old_runs(runs)
            self.prune()
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
            o["uri"],
            o["size"],
            o["generation"],
            date.fromisoformat(o["day"]) if o["day"] else None,
            o.get("modified_ns"),
        )
        for o in data["objects"]
    ]
    return Listing(objects, data["warnings"])
