"""Two endpoints that fail as networks do: a port nobody listens on, and one that accepts and
never answers.

- `refused_port()`: a port bound once and closed, so a connection to it is refused at once
  (the kernel answers RST);
- `silent_server()`: a socket that listens and never reads or replies. The kernel completes
  each TCP handshake from its backlog, so a client connects, sends its request and waits for
  an answer that never comes: the deadline is what ends it.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


def refused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def silent_server() -> Iterator[int]:
    """The port of a listening socket that never answers, while the block runs."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        yield server.getsockname()[1]
