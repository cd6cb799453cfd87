"""What the CLI, the pages and the month report show of one hand-built warehouse.

A test builds the warehouse from rows (tests/models/conftest.py's `books`), works the figure
out by hand, and reads it back from every caller: the CLI's lines, a page opened in Streamlit's
AppTest on the published snapshot, the month report's rows. One figure, one value.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.conftest import HANG_S
from tests.models.conftest import Books

APP = Path(__file__).resolve().parents[2] / "dashboards" / "app.py"
PAGES = {
    "overview": None,
    "tokens": "pages/cost_per_million_tokens.py",
    "idle": "pages/idle_capacity.py",
    "explorer": "pages/cost_explorer.py",
    "commitments": "pages/commitments.py",
}


def published(books: Books) -> Path:
    """The books' warehouse published for readers, and a config naming it."""
    books.warehouse.publish_snapshot()
    config = books.root / "flopledger.yaml"
    config.write_text(f"warehouse: {{kind: duckdb, path: {books.warehouse.where()}}}\n")
    return config


def page(monkeypatch: Any, config: Path, name: str, url: dict[str, Any] | None = None) -> AppTest:
    """A page of the app after it has run on `config`'s snapshot (no exception, no error)."""
    monkeypatch.setenv("FLOPLEDGER_CONFIG", str(config))
    at = AppTest.from_file(str(APP), default_timeout=HANG_S)
    for key, value in (url or {}).items():
        at.query_params[key] = value
    at.run()
    if PAGES[name]:
        at.switch_page(PAGES[name])
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def metric(at: AppTest, label: str) -> str:
    found = [m.value for m in at.metric if m.label == label]
    assert found, f"no metric {label!r} in {[m.label for m in at.metric]}"
    return found[0]


def frame_with(at: AppTest, column: str) -> pd.DataFrame:
    """The one table on the page that has `column`."""
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(found) == 1, f"{len(found)} tables with {column!r}"
    return found[0]


def squeezed(lines: list[str]) -> list[str]:
    """CLI lines with runs of spaces as one (the columns' widths are not the point)."""
    return [" ".join(line.split()) for line in lines]


def gpu_minutes(start: datetime, busy_pct: float, resource: str = "vm-1") -> list[dict]:
    """8 GPUs of `resource` for the hour from `start`, every GPU busy at `busy_pct` (SM activity)."""
    return [
        {
            "minute": start + timedelta(minutes=m),
            "node": resource,
            "project_id": "ml-prod",
            "resource_name": resource,
            "gpu_uuid": f"GPU-{i}",
            "gpu_index": i,
            "gpu_name": "NVIDIA H100 80GB HBM3",
            "util_gpu_pct": 100.0,
            "sm_active_pct": busy_pct,
            "tensor_active_pct": busy_pct / 2,
            "power_w": 700.0,
            "energy_j": 700.0 * 60,
            "samples": 60,
            "status": "ok",
        }
        for m in range(60)
        for i in range(8)
    ]
