"""How a door to a network service fails: fast when nobody listens, within a deadline when
nobody answers, and in one line that names the endpoint and what happened.

The doors (collectors/gcs.py, clients/bigquery.py, collectors/cloud_monitoring/,
collectors/kubernetes/client.py) keep three rules:
- a refused connection (nothing listens on the port) is retried at most `REFUSED_RETRIES`
  times, after the library's first short backoffs (a few seconds in all), then reported:
  never the minutes a library's default retry spends on it;
- each request has a deadline (`DEADLINE_S`): no answer within it is reported, not retried (a
  hung endpoint hangs again);
- the error is one line, `<endpoint>: connection refused`, `<endpoint>: no answer within 30 s`.

Stdlib only: it reads the exceptions of requests, urllib3, gRPC and google-api-core alike by
what caused them (a ConnectionRefusedError, a socket timeout somewhere in the chain).
"""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable, Iterator

# How long a request may go without an answer (seconds), until `use_deadlines` sets the
# process's own from flopledger.yaml's `network:` block; a door given a deadline uses that.
DEADLINE_S = 30.0
WEBHOOK_DEADLINE_S = 10.0
_deadlines = {"service": DEADLINE_S, "webhook": WEBHOOK_DEADLINE_S}
# How often a refused connection is tried again before it is reported.
REFUSED_RETRIES = 2
_TIMEOUT_NAMES = frozenset(
    {"ReadTimeout", "ConnectTimeout", "Timeout", "ReadTimeoutError", "DeadlineExceeded"}
)
_MAX_CHAIN = 64  # exceptions looked at behind one error (causes, contexts, wrapped reasons)


def use_deadlines(service_s: float, webhook_s: float) -> None:
    """The deadlines this process's doors use from now on (flopledger.yaml `network:`: set by
    the Dagster resource and the commands that call services, once the config is read)."""
    _deadlines.update(service=float(service_s), webhook=float(webhook_s))


def deadline(given: float | None = None) -> float:
    """`given`, else the process's deadline for a service call (seconds)."""
    return _deadlines["service"] if given is None else given


def webhook_deadline() -> float:
    """The process's deadline for a webhook post (seconds)."""
    return _deadlines["webhook"]


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception and what it wraps: causes and contexts, urllib3's `reason`,
    google-api-core's `cause` (a RetryError's last error), and exceptions passed as args."""
    seen: set[int] = set()
    todo = [exc]
    while todo and len(seen) < _MAX_CHAIN:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        wrapped = (
            current.__cause__,
            current.__context__,
            getattr(current, "reason", None),
            getattr(current, "cause", None),
            *current.args,
        )
        todo.extend(w for w in wrapped if isinstance(w, BaseException))


def is_refused(exc: BaseException) -> bool:
    """Nothing listens there: a ConnectionRefusedError behind it, or gRPC's words for one."""
    return any(
        isinstance(e, ConnectionRefusedError) or "connection refused" in str(e).lower()
        for e in _chain(exc)
    )


def is_timeout(exc: BaseException) -> bool:
    """No answer within the deadline: a socket timeout behind it, or a library's timeout."""
    return any(
        isinstance(e, TimeoutError) or type(e).__name__ in _TIMEOUT_NAMES for e in _chain(exc)
    )


def first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else exc.__class__.__name__)[:limit]


def problem(exc: BaseException, deadline_s: float) -> str:
    """What went wrong on the wire, in a few words (else the error's first line)."""
    if is_refused(exc):
        return "connection refused (nothing listens there)"
    if is_timeout(exc):
        return f"no answer within {deadline_s:g} s"
    chain = list(_chain(exc))
    if any(isinstance(e, socket.gaierror) for e in chain):
        return "host not found"
    if any(isinstance(e, ConnectionResetError) for e in chain):
        return "connection reset"
    return first_line(exc)


def failure(endpoint: str, exc: BaseException, deadline_s: float) -> str:
    """`<endpoint>: <what happened>`, one line."""
    return f"{endpoint}: {problem(exc, deadline_s)}"


def limit_refusals(
    transient: Callable[[Exception], bool], retries: int = REFUSED_RETRIES
) -> Callable[[Exception], bool]:
    """A retry predicate: the library's own (`transient`), except that a refused connection is
    retried at most `retries` times and a request that got no answer within its deadline is
    not retried. It counts refusals, so make one per call."""
    refusals = itertools.count(1)

    def should_retry(exc: Exception) -> bool:
        if is_refused(exc):
            return next(refusals) <= retries
        if is_timeout(exc):
            return False
        return transient(exc)

    return should_retry
