"""What the differential fuzzers share (tests/collectors/test_billing_columnar_fuzz.py and
tests/collectors/cloud_monitoring/test_pages_columnar_fuzz.py): JSON text with raw tokens in
it, the paths into a nested value, and its members shuffled."""

from __future__ import annotations

import json
import random
from typing import Any


class Raw(str):
    """A JSON token written as is (a spelling json.dumps would not write)."""


def dumps_with_raws(value: Any, **options: Any) -> str:
    """json.dumps(value, **options), each Raw in it written as its own text."""
    raws: dict[str, str] = {}

    def swap(item: Any) -> Any:
        if isinstance(item, Raw):
            key = f"@@raw{len(raws)}@@"
            raws[key] = str(item)
            return key
        if isinstance(item, dict):
            return {k: swap(v) for k, v in item.items()}
        if isinstance(item, list):
            return [swap(v) for v in item]
        return item

    text = json.dumps(swap(value), **options)
    for key, raw in raws.items():
        text = text.replace(f'"{key}"', raw)
    return text


def all_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every path (keys and list indexes) into a nested value, parents before children."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in [(*path, k), *all_paths(v, (*path, k))]]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in [(*path, i), *all_paths(v, (*path, i))]]
    return []


def shuffled(value: Any, rng: random.Random) -> Any:
    """The value with the members of every object in a random order."""
    if isinstance(value, dict):
        items = [(k, shuffled(v, rng)) for k, v in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value
