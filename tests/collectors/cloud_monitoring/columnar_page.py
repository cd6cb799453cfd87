"""One saved page through the columnar reader's two steps, as the tests drive it."""

from flopledger.collectors.cloud_monitoring.columnar import add_parsed, parse_page
from flopledger.collectors.cloud_monitoring.parse import SampleBuilder


def read_page(builder: SampleBuilder, data: bytes) -> bool:
    """Add one saved page (the file's bytes) to `builder` in columns; True when read, False
    (and nothing added) when the page must go to the per-object reader."""
    parsed = parse_page(data)
    return parsed is not None and add_parsed(builder, parsed)
