"""What went wrong on the wire, in a few words, and what an answer says of a change."""

from __future__ import annotations

import socket
import ssl

# 5xx answers to a change that say it was not performed (RFC 9110 15.6.2 and 15.6.6, RFC 4918
# 11.5); every other 5xx may follow a stored change (see `maybe_stored`)
NOT_PERFORMED = frozenset({501, 505, 507})


def maybe_stored(status: object) -> bool:
    """A change answered with this status may have been stored: any 5xx but those that say
    it was not performed (501 Not Implemented, 505, 507 Insufficient Storage).

    RFC 9110 (15.6) promises nothing of a 5xx about what was done; 500, 502 and 504 come
    after a request was handed on, and so does a 503: Envoy (and Istio, built on it) answers
    503 when the server's connection ends or is reset after the request went to it ("UC",
    "UR": "upstream connect error or disconnect/reset before headers"). A 503 sent before
    anything reached the server (overload, maintenance, no server up) cannot be told from
    one sent after, so "Nothing was changed" could be false: the owner is told it may have
    been made, and asking again is safe (PUT and DELETE are idempotent, RFC 9110 9.2.2; a
    new event keeps its UID and is then found as already on the calendar)."""
    return isinstance(status, int) and 500 <= status <= 599 and status not in NOT_PERFORMED


def is_forbidden(exc: Exception) -> bool:
    """A 403 to a change: the server knows the account and will not let it write there (a UID
    taken, which some servers also answer with 403, is not this)."""
    from caldav.lib import error as dav_error

    return (
        isinstance(exc, dav_error.AuthorizationError)
        and not isinstance(exc, dav_error.UidConflictError)
        and getattr(exc, "status", None) == 403
    )


def kind(exc: BaseException) -> str:
    return type(exc).__name__


def causes(exc: BaseException) -> list[BaseException]:
    """The exception and what it wraps: niquests and urllib3 keep the cause in args[0] or
    `reason` (MaxRetryError), not always in __cause__."""
    found: list[BaseException] = []
    stack: list[object] = [exc]
    while stack:
        item = stack.pop()
        if not isinstance(item, BaseException) or any(item is f for f in found):
            continue
        found.append(item)
        stack.extend((item.__cause__, item.__context__, getattr(item, "reason", None)))
        stack.extend(item.args)
    return found


def reason(exc: BaseException) -> str:
    """What went wrong on the wire, in a few words."""
    found = causes(exc)
    for exc_type, words in (
        (ConnectionRefusedError, "connection refused"),
        (socket.gaierror, "the server's name cannot be looked up"),
        (ssl.SSLError, "the secure connection (TLS) failed"),
        (ConnectionResetError, "connection reset"),
    ):
        if any(isinstance(c, exc_type) for c in found):
            return words
    text = " ".join(str(c) for c in found).lower()
    for known in ("Connection refused", "Name or service not known", "No route to host"):
        if known.lower() in text:
            return known.lower()
    return type(exc).__name__
