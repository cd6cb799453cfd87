"""Input files where they live (collectors/inputs.py): local and gs:// paths and globs listed
the same way, day filters by name, each object downloaded once, one-line errors. Remote
paths go through the real google-cloud-storage client against gcp-storage-emulator."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from flopledger.collectors.gcs import StorageError, reader_client
from flopledger.collectors.inputs import (
    InputCache,
    InputObject,
    _copy_path,
    _safe_name,
    day_of,
    for_days,
    list_inputs,
    window_days,
)
from tests.gcs_emulator import Emulator, running_emulator


@pytest.fixture
def gcs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    with running_emulator(monkeypatch) as emulator:
        yield emulator


def _tree(root: Path) -> Path:
    """The same small layout on disk and (uploaded) in the bucket."""
    for name, text in {
        "billing/2026-10-01/a.ndjson": "a\n",
        "billing/2026-10-02/b.ndjson": "bb\n",
        "billing/2026-10-02/c.parquet": "ccc",
        "spool/dt=2026-10-01/gpu_samples_n1_20261001T000000Z_x.parquet": "1",
        "spool/dt=2026-10-02/gpu_samples_n1_20261002T000000Z_x.parquet": "22",
        "spool/dt=2026-10-03/gpu_samples_n1_20261003T000000Z_x.parquet": "333",
        "probes/probe_results.jsonl": "p\n",
    }.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _names(objects: list[InputObject], strip: str) -> list[str]:
    return [o.uri.removeprefix(strip) for o in objects]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("billing/**/*.ndjson", ["billing/2026-10-01/a.ndjson", "billing/2026-10-02/b.ndjson"]),
        ("billing/*/c.parquet", ["billing/2026-10-02/c.parquet"]),
        ("billing/2026-10-0[2]/*", ["billing/2026-10-02/b.ndjson", "billing/2026-10-02/c.parquet"]),
        ("probes/probe_results.jsonl", ["probes/probe_results.jsonl"]),
        ("probes", ["probes/probe_results.jsonl"]),  # a folder: everything under it
        (
            "spool/dt=2026-10-0?/*.parquet",
            [
                "spool/dt=2026-10-01/gpu_samples_n1_20261001T000000Z_x.parquet",
                "spool/dt=2026-10-02/gpu_samples_n1_20261002T000000Z_x.parquet",
                "spool/dt=2026-10-03/gpu_samples_n1_20261003T000000Z_x.parquet",
            ],
        ),
    ],
)
def test_local_and_remote_globs_match_the_same_files(
    tmp_path: Path, gcs: Emulator, pattern: str, expected: list[str]
) -> None:
    root = _tree(tmp_path / "disk")
    gcs.upload_tree(root, "inputs", "export")
    local = list_inputs([str(root / pattern)], reader_client)
    remote = list_inputs([f"gs://inputs/export/{pattern}"], reader_client)
    assert _names(local.objects, f"{root}/") == expected
    assert _names(remote.objects, "gs://inputs/export/") == expected
    assert [o.size for o in local.objects] == [o.size for o in remote.objects]
    assert all(o.generation for o in remote.objects)
    assert not local.warnings and not remote.warnings


def test_a_path_matching_nothing_warns_in_one_line(tmp_path: Path, gcs: Emulator) -> None:
    gcs.upload_tree(_tree(tmp_path / "disk"), "inputs")
    listing = list_inputs(
        ["gs://inputs/billing/*.csv", str(tmp_path / "none/*.csv")], reader_client
    )
    assert listing.objects == []
    assert listing.warnings == [
        "gs://inputs/billing/*.csv: matches nothing",
        f"{tmp_path}/none/*.csv: matches nothing",
    ]


def test_missing_bucket_and_refused_listing_are_one_line_errors(
    tmp_path: Path, gcs: Emulator
) -> None:
    with pytest.raises(StorageError) as missing:
        list_inputs(["gs://no-such-bucket/x/*.json"], reader_client)
    assert str(missing.value) == "gs://no-such-bucket: bucket does not exist"
    gcs.upload_tree(_tree(tmp_path / "disk"), "locked")
    gcs.forbidden.add("locked")
    with pytest.raises(StorageError) as refused:
        list_inputs(["gs://locked/billing/*.ndjson"], reader_client)
    assert "\n" not in str(refused.value)
    assert str(refused.value).startswith("gs://locked/billing/: permission denied listing objects")


def test_a_refused_download_is_a_one_line_error(tmp_path: Path, gcs: Emulator) -> None:
    gcs.upload_tree(_tree(tmp_path / "disk"), "inputs")
    gcs.unreadable.add("inputs")
    cache = InputCache(tmp_path / "cache", reader_client)
    listing = cache.listing(["gs://inputs/probes"], None)  # listing is allowed
    with pytest.raises(StorageError) as refused:
        cache.fetch(listing.objects)
    assert str(refused.value).startswith(
        "gs://inputs/probes/probe_results.jsonl: permission denied reading (needs storage.objects.get"
    )
    assert "\n" not in str(refused.value)


def test_no_credentials_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("STORAGE_EMULATOR_HOST", raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "absent.json"))
    with pytest.raises(StorageError, match="^gs:// paths need Google credentials"):
        reader_client()


def test_each_object_is_downloaded_once_and_a_rerun_downloads_nothing(
    tmp_path: Path, gcs: Emulator
) -> None:
    gcs.upload_tree(_tree(tmp_path / "disk"), "inputs")
    cache = InputCache(tmp_path / "cache", reader_client)
    gcs.requests.clear()
    for _ in range(3):  # three steps of one run ask for the same paths
        listing = cache.listing(["gs://inputs/billing/**/*.ndjson"], run_key="run-1")
        fetched = cache.fetch(listing.objects)
    assert gcs.listings() == ["inputs"]  # listed once for the run
    assert sorted(gcs.downloads()) == [
        "inputs/billing/2026-10-01/a.ndjson",
        "inputs/billing/2026-10-02/b.ndjson",
    ]
    # Readers get local copies named by their URI; the bytes are the object's.
    assert [str(p) for p in fetched.paths] == [
        "gs://inputs/billing/2026-10-01/a.ndjson",
        "gs://inputs/billing/2026-10-02/b.ndjson",
    ]
    assert [p.read_text() for p in fetched.paths] == ["a\n", "bb\n"]
    assert os.fspath(fetched.paths[0]).startswith(str(tmp_path / "cache"))
    # A new run lists again (something may have arrived) but downloads nothing it took.
    gcs.requests.clear()
    rerun = InputCache(tmp_path / "cache", reader_client)
    again = rerun.fetch(rerun.listing(["gs://inputs/billing/**/*.ndjson"], "run-2").objects)
    assert gcs.listings() == ["inputs"] and gcs.downloads() == []
    assert (again.downloaded, again.reused) == (0, 2)


def test_a_rewritten_object_is_taken_again(tmp_path: Path, gcs: Emulator) -> None:
    gcs.upload_tree(_tree(tmp_path / "disk"), "inputs")
    cache = InputCache(tmp_path / "cache", reader_client)
    cache.fetch(cache.listing(["gs://inputs/probes"], "run-1").objects)
    gcs.client.bucket("inputs").blob("probes/probe_results.jsonl").upload_from_string("p2\n")
    gcs.requests.clear()
    fetched = cache.fetch(cache.listing(["gs://inputs/probes"], "run-2").objects)
    assert gcs.downloads() == ["inputs/probes/probe_results.jsonl"]
    assert fetched.paths[0].read_text() == "p2\n"


def test_an_object_gone_between_listing_and_reading_is_a_warning(
    tmp_path: Path, gcs: Emulator
) -> None:
    gcs.upload_tree(_tree(tmp_path / "disk"), "inputs")
    cache = InputCache(tmp_path / "cache", reader_client)
    listing = cache.listing(["gs://inputs/billing/**/*.ndjson"], "run-1")
    gcs.client.bucket("inputs").blob("billing/2026-10-01/a.ndjson").delete()
    fetched = cache.fetch(listing.objects)
    assert [str(p) for p in fetched.paths] == ["gs://inputs/billing/2026-10-02/b.ndjson"]
    assert len(fetched.warnings) == 1
    assert fetched.warnings[0].startswith(
        "gs://inputs/billing/2026-10-01/a.ndjson: vanished between listing and reading"
    )


@pytest.mark.parametrize(
    "name", ["x/../../../escape.json", "/etc/passwd", "a//b.json", "./a.json", "a/..", "ok/a.json"]
)
def test_hostile_object_names_stay_inside_the_cache(tmp_path: Path, name: str) -> None:
    # (The emulator refuses such names; Cloud Storage itself takes them, so the cache must too.)
    cache = tmp_path / "cache"
    local = (cache / "objects" / "inputs" / _safe_name(name)).resolve()
    assert local.is_relative_to(cache.resolve())
    assert local != (cache / "objects" / "inputs").resolve()


def test_an_object_and_a_folder_of_the_same_name_both_get_copies(tmp_path: Path) -> None:
    top = tmp_path / "objects" / "inputs"
    (top / "logs").parent.mkdir(parents=True)
    (top / "logs").write_text("an object named logs")
    nested = _copy_path(top, "logs/a.json")  # `logs` is a file: this copy goes elsewhere
    assert nested.is_relative_to(top / "_unsafe") and nested.name == "a.json"
    (top / "x" / "y").mkdir(parents=True)
    assert _copy_path(top, "x/y").is_relative_to(top / "_unsafe")  # a folder is in the way
    assert _copy_path(top, "x/z.json") == top / "x" / "z.json"


def test_day_from_the_name() -> None:
    assert day_of("spool/dt=2026-10-03/gpu_samples_n_20261002T000000Z_ab.parquet") == date(
        2026, 10, 2
    )  # the file's own stamp wins over its folder
    assert day_of("spool/dt=2026-10-03/part-0.parquet") == date(2026, 10, 3)
    assert day_of("monitoring/2026-10-04/tpu-v5p-8-000-00001.json") == date(2026, 10, 4)
    assert day_of("jobs/runs.jsonl") is None
    assert day_of("x/dt=2026-02-30/a.json") is None  # no such day: undated, so always read


def test_a_dated_folder_above_the_pattern_is_not_the_files_day(tmp_path: Path) -> None:
    root = tmp_path / "backup-2025-01-01" / "2025-01-01"  # a dated copy of a whole tree
    for name in ("monitoring/tpu-00001.json", "monitoring/2026-10-03/tpu-00001.json"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("{}")
    listing = list_inputs([f"{root}/monitoring/**/*.json"], reader_client)
    assert [o.day for o in listing.objects] == [date(2026, 10, 3), None]


def test_a_day_window_keeps_its_days_the_day_before_and_the_undated() -> None:
    objects = [
        InputObject(f"gs://b/dt=2026-10-0{d}/f.parquet", 1, "1", date(2026, 10, d))
        for d in range(1, 6)
    ] + [InputObject("gs://b/undated.parquet", 1, "1", None)]
    kept = for_days(objects, [date(2026, 10, 3)], slack_days=1)
    # Day 3 with one day of slack: files named for 2 and 3, and the undated one.
    assert [o.uri for o in kept] == [
        "gs://b/dt=2026-10-02/f.parquet",
        "gs://b/dt=2026-10-03/f.parquet",
        "gs://b/undated.parquet",
    ]
    assert len(for_days(objects, [date(2026, 10, 3)], slack_days=0)) == 2


@pytest.mark.parametrize(
    "name", ["a/" + "x" * 300 + ".ndjson", "a/" + "é" * 200 + ".ndjson", "d" * 250 + "/b.ndjson"]
)
def test_a_name_too_long_for_a_file_system_is_copied_under_a_digest(
    tmp_path: Path, gcs: Emulator, name: str
) -> None:
    # Cloud Storage allows 1,024 bytes of name; a file system 255 per part ('é' is 2 bytes).
    gcs.client.create_bucket("bkt").blob(name).upload_from_string("{}\n")
    cache = InputCache(tmp_path / "cache", reader_client)
    listing = cache.listing([f"gs://bkt/{name}"], "run-1")
    fetched = cache.fetch(listing.objects)
    assert fetched.warnings == [] and fetched.downloaded == 1
    assert [str(p) for p in fetched.paths] == [f"gs://bkt/{name}"]  # named as it is
    assert fetched.paths[0].read_text() == "{}\n" and fetched.paths[0].suffix == ".ndjson"
    assert all(len(part.encode()) <= 200 for part in Path(os.fspath(fetched.paths[0])).parts)
    again = InputCache(tmp_path / "cache", reader_client).fetch(listing.objects)
    assert (again.downloaded, again.reused) == (0, 1)


def _spool_bucket(gcs: Emulator) -> None:
    """Five days of a dt= layout, one undated object beside them and one other folder."""
    bucket = gcs.client.create_bucket("inputs")
    for d in range(1, 6):
        name = f"nvml/dt=2026-10-0{d}/gpu_samples_n1_2026100{d}T000000Z_x.parquet"
        bucket.blob(name).upload_from_string("x")
    bucket.blob("nvml/undated.parquet").upload_from_string("u")
    bucket.blob("nvml/extra/x.parquet").upload_from_string("e")


def _listed_prefixes(gcs: Emulator) -> list[str]:
    return [
        q.get("prefix", [""])[0] + (" (one level)" if q.get("delimiter") else "")
        for m, p, q in gcs.requests
        if m == "GET" and p.endswith("/o")
    ]


def test_a_days_run_lists_only_its_days_folders(tmp_path: Path, gcs: Emulator) -> None:
    _spool_bucket(gcs)
    cache = InputCache(tmp_path / "cache", reader_client)
    days = [date(2026, 10, 2), date(2026, 10, 3)]  # a day and the day before (the spool's slack)
    gcs.requests.clear()
    glob = cache.listing(["gs://inputs/nvml/dt=*/*.parquet"], "run-1", days)
    cache.listing(["gs://inputs/nvml/dt=*/*.parquet"], "run-1", days)  # the run's listing again
    # Two requests, one per day folder, each returning that day's one object (not 5 days' 5).
    assert _listed_prefixes(gcs) == ["nvml/dt=2026-10-02/", "nvml/dt=2026-10-03/"]
    assert [o.day for o in glob.objects] == days
    gcs.requests.clear()
    folder = cache.listing(["gs://inputs/nvml"], "run-1", days)
    # The folder: one request for its level (undated.parquet and 7 folder names, no object
    # below them), its two days, and `extra/` (not a day: listed whole): 4 objects, not 7.
    assert _listed_prefixes(gcs) == [
        "nvml/ (one level)",
        "nvml/dt=2026-10-02/",
        "nvml/dt=2026-10-03/",
        "nvml/extra/",
    ]
    assert _names(folder.objects, "gs://inputs/nvml/") == [
        "dt=2026-10-02/gpu_samples_n1_20261002T000000Z_x.parquet",
        "dt=2026-10-03/gpu_samples_n1_20261003T000000Z_x.parquet",
        "extra/x.parquet",
        "undated.parquet",
    ]
    gcs.requests.clear()
    anywhere = cache.listing(["gs://inputs/nvml/**/*.parquet"], "run-1", days)
    assert _listed_prefixes(gcs) == [
        "nvml/ (one level)",
        "nvml/dt=2026-10-02/",
        "nvml/dt=2026-10-03/",
        "nvml/extra/",
    ]
    assert [o.uri for o in anywhere.objects] == [o.uri for o in folder.objects]
    gcs.requests.clear()
    everything = cache.listing(["gs://inputs/nvml"], "run-2")  # no days (finding them): whole
    assert _listed_prefixes(gcs) == ["nvml"] and len(everything.objects) == 7
    gcs.requests.clear()
    assert len(cache.listing(["gs://inputs/nvml"], "run-2", days).objects) == 7
    assert gcs.requests == []  # the run's listing of every day serves its days


def test_window_days_are_the_days_for_days_keeps() -> None:
    assert window_days([date(2026, 10, 3), date(2026, 10, 1)], slack_days=1) == [
        date(2026, 9, 30),
        date(2026, 10, 1),
        date(2026, 10, 2),
        date(2026, 10, 3),
    ]


def test_copies_no_run_reads_any_more_are_pruned(tmp_path: Path, gcs: Emulator) -> None:
    bucket = gcs.client.create_bucket("inputs")
    names = {
        "old-unread": "nvml/dt=2026-10-01/a.parquet",
        "old-read-whole": "billing/2026-10-01/b.ndjson",
        "recent": "nvml/dt=2026-11-29/c.parquet",
        "undated-36-days": "jobs/d.jsonl",
        "undated-34-days": "jobs/e.jsonl",
    }
    for name in names.values():
        bucket.blob(name).upload_from_string("x")
    cache = InputCache(tmp_path / "cache", reader_client, keep_days=35)
    fetched = cache.fetch(cache.listing(["gs://inputs"], None).objects)
    assert fetched.downloaded == 5
    # Now is 2026-11-30 12:00 UTC: days before 2026-10-26 are past the 35 days kept.
    now = datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp()
    last_read_days_ago = {
        "old-unread": 3,  # its day is past and no run read it for 3 days: pruned
        "old-read-whole": 1 / 24,  # its day is past but a source still reads it: kept
        "recent": 3,  # its day is within 35 days: kept
        "undated-36-days": 36,  # not read for more than 35 days: pruned
        "undated-34-days": 34,  # kept
    }
    records = {}
    for key, name in names.items():
        record = next(
            r
            for r in (tmp_path / "cache" / "taken" / "inputs").iterdir()
            if json.loads(r.read_text())["uri"] == f"gs://inputs/{name}"
        )
        read_at = now - last_read_days_ago[key] * 24 * 3600
        os.utime(record, (read_at, read_at))
        records[key] = record
    copies = {p.name for p in fetched.paths}
    assert cache.prune(now) == 2
    assert {k for k, r in records.items() if r.exists()} == {
        "old-read-whole",
        "recent",
        "undated-34-days",
    }
    left = {p.name for p in (tmp_path / "cache" / "objects").rglob("*") if p.is_file()}
    assert left == copies - {"a.parquet", "d.jsonl"}
    # A run that needs a pruned one again downloads it again.
    again = cache.fetch(cache.listing(["gs://inputs/jobs"], None).objects)
    assert (again.downloaded, again.reused) == (1, 1)
