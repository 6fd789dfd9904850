"""caldav's client, with the check caldav does not make: that an answer to a REPORT is CalDAV.

A calendar-query (the events of some days) is answered with a multistatus: one response per
event, none for days without any. caldav parses whatever 2xx body comes back as XML and
reads its responses without checking what it was given, so a web page (a sign-in page, a
Wi-Fi login, a proxy's page answering in the server's place), an empty body, JSON or XML of
another kind fails somewhere inside caldav with a TypeError or an AttributeError, after
logging "deviation from expectations" at ERROR: an accident, which a caldav release that skips
what it cannot read would turn into "no events" for days nobody read. So the answer is looked
at here, before caldav reads it, and one that is not a multistatus raises `NotCalendarData`,
saying what it was.

Imported in the calendar's worker thread, with caldav (see calendar/client.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import niquests
from caldav.davclient import DAVClient
from caldav.elements import dav

_HTML = re.compile(r"\s*(<!doctype\s+html|<html)", re.IGNORECASE)
_JSON = re.compile(r"\s*[\[{]")
# what caldav itself reads as a multistatus (caldav/response.py `_strip_to_multistatus`)
_CALDAV_ROOTS = frozenset({dav.MultiStatus.tag, dav.Response.tag})


class NotCalendarData(Exception):
    """A REPORT was answered (2xx) with something that is not CalDAV; `what` says what, in
    words for the owner ("a web page", "an empty answer", "JSON")."""

    def __init__(self, what: str) -> None:
        super().__init__(f"answered a REPORT with {what}")
        self.what = what


class CheckedDAVClient(DAVClient):
    """caldav's synchronous client; a REPORT's answer is checked before caldav reads it, and a
    request waits no longer than `time_left(method)` says (None: the full `timeout`).

    The caller of a calendar call stops waiting after its time is up, but the worker thread
    cannot be stopped: a read given the full timeout would keep its thread, the connection and
    the client's lock after nobody waits for it (and `commonplace doctor` would wait for it on
    its way out). A request with no time left is not sent at all."""

    def __init__(
        self, *args: Any, time_left: Callable[[str], float | None] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._full_timeout: float | None = self.timeout
        self._time_left = time_left

    def request(
        self,
        url: str,
        method: str = "GET",
        body: str = "",
        headers: Mapping[str, str] | None = None,
        rate_limit_time_slept: float = 0,
    ) -> Any:
        left = self._time_left(method.upper()) if self._time_left is not None else None
        if left is not None and left <= 0:
            raise niquests.exceptions.ReadTimeout(f"no time left to send a {method}")
        full = self._full_timeout
        wait = full if left is None else left if full is None else min(full, left)
        self.timeout = wait  # type: ignore[assignment]  # caldav says int; niquests takes float
        return super().request(url, method, body, headers, rate_limit_time_slept)  # type: ignore[arg-type]

    def report(self, url: str, query: str = "", depth: int | None = 0) -> Any:
        answer = super().report(url, query, depth)
        if _asks_free_busy(query):  # answered with text/calendar, not a multistatus
            return answer
        what = not_caldav(answer)
        if what is not None:
            raise NotCalendarData(what)
        return answer


def not_caldav(answer: Any) -> str | None:
    """What a 2xx answer that should be a multistatus is instead, in a few words; None when it
    is one (or an error status, which caldav reports itself)."""
    if not 200 <= int(answer.status) < 300:
        return None
    tree = getattr(answer, "tree", None)  # unset when the body is not XML
    root = None if tree is None else tree[0] if tree.tag == "xml" and len(tree) else tree
    if root is not None and root.tag in _CALDAV_ROOTS:
        return None
    kind = str(answer.headers.get("Content-Type", "")).lower()
    body = answer.raw if isinstance(answer.raw, str) else ""
    if not body.strip():
        return "an empty answer"
    if "html" in kind or looks_like_html(body) or (root is not None and _local(root.tag) == "html"):
        return "a web page"
    if "json" in kind or _JSON.match(body):
        return "JSON"
    if root is not None:
        return f"XML of another kind (<{_local(str(root.tag))}>)"
    return f"an answer of another kind ({kind.split(';')[0] or 'no Content-Type'})"


def looks_like_html(body: str) -> bool:
    return bool(_HTML.match(body))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _asks_free_busy(query: Any) -> bool:
    text = query.decode("utf-8", "replace") if isinstance(query, bytes) else str(query)
    return "free-busy-query" in text
