"""One name and one definition per figure: figures/__init__.py, docs/glossary.md, and the CLI
headline printing the idle shares under those names (hand-worked on a small fleet)."""

from pathlib import Path

import pytest

from flopledger.cli.headline import idle_figure_lines
from flopledger.figures import FIGURES, glossary_markdown
from tests.models.conftest import books  # noqa: F401 - the fixture the headline test builds with

REPO = Path(__file__).resolve().parents[2]


def test_the_glossary_is_written_from_the_figures():
    text = (REPO / "docs" / "glossary.md").read_text()
    assert text == glossary_markdown(), (
        "regenerate: python -m flopledger.figures > docs/glossary.md"
    )


def test_each_name_and_anchor_is_used_once():
    assert len({f.name.lower() for f in FIGURES}) == len(FIGURES)
    assert len({f.anchor for f in FIGURES}) == len(FIGURES)
    assert next(f for f in FIGURES if f.key == "idle_share_of_cost").anchor == "idle-share-of-cost"


@pytest.fixture
def idle_fleet(books):  # noqa: F811 - the fixture imported above
    from tests.models.rows import gpu, host, run

    # One 8-GPU VM for two hours, 16 GPU-hours: hour 00 GPU 80 + host 20 = 100; hour 01 GPU 80 +
    # host 60 = 140; 240 in all. A run holds all 8 GPUs in hour 00 only -> 100 allocated;
    # hour 01 is unallocated idle: 140 and 8 GPU-hours.
    return books.build(
        [gpu("2026-10-01 00", 80), host("2026-10-01 00", 20),
         gpu("2026-10-01 01", 80), host("2026-10-01 01", 60)],
        [run("r", "2026-10-01T00:00:00Z", "2026-10-01T01:00:00Z")],
    )  # fmt: skip


def test_the_headline_names_each_idle_share(idle_fleet):
    # Unallocated idle share of cost 140 / 240 = 58.3%; no telemetry (no allocated idle), so the
    # idle share of cost is the same 58.3%; unallocated idle share of hours 8 / 16 = 50.0%.
    lines = [" ".join(line.split()) for line in idle_figure_lines(idle_fleet.warehouse)]
    assert lines == [
        "unallocated idle share of cost 58.3% (of the accelerator resource cost)",
        "idle share of cost 58.3% (unallocated + allocated idle, of the same cost)",
        "unallocated idle share of hours 50.0% (of 16 paid accelerator-hours)",
    ]


def test_every_figure_with_a_unit_says_how_it_is_rounded():
    assert [f.key for f in FIGURES if bool(f.unit) != bool(f.rounding)] == []
