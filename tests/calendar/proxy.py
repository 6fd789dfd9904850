"""A loopback proxy in front of the test Radicale that behaves like other CalDAV servers.

Radicale answers fast, hands out strong ETags, never sends a Schedule-Tag and refuses malformed
events on PUT. Real providers do not all do that, so the calendar tests put this proxy between
the client and Radicale to play those habits at the HTTP boundary while Radicale still stores
and compares: an answer held back after the request was forwarded (the server did the work, the
client waits), weak ETags (`W/"..."`, as GMX sends), a `Schedule-Tag` header (RFC 6638, servers
with scheduling), and a response body rewritten on its way back (data another server stored).
A change can be answered with a gateway's 5xx after Radicale stored it, or refused (a 403
for a calendar shared read-only) without reaching it. A request can also be
swallowed (read, never forwarded, never answered) or cut off (read, never
forwarded, the connection reset): a server that got the request and then said nothing. Or it
can be answered in the server's place, never forwarded (`answer`: a sign-in page, a captive
portal, a proxy's own page, with the status and Content-Type they send).
Every request is recorded with its headers, so a test can say what the client sent, and the
connections the client holds open are counted (`open_connections`), so a test can say that it
closed them: a swallowed request's connection counts until the client closes its end.
"""

from __future__ import annotations

import re
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import niquests

_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "content-encoding",
    "host",
    "accept-encoding",
}
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets the connection
_ETAG_IN_XML = re.compile(r"(<(?:\w+:)?getetag>)(&quot;|\")")


@dataclass
class Sent:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names


@dataclass
class Proxy:
    url: str  # http://127.0.0.1:PORT/, in place of Radicale's
    hold: dict[str, float] = field(default_factory=dict)  # method -> seconds the answer waits
    weak_etags: bool = False
    schedule_tag: str | None = None  # sent with every GET answer when set
    rewrite: Callable[[str, str], str] | None = None  # (method, body) -> body, answers only
    fail_once: dict[str, int] = field(default_factory=dict)  # method -> status, after forwarding
    refuse: dict[str, int] = field(default_factory=dict)  # method -> status, never forwarded
    swallow: set[str] = field(default_factory=set)  # methods read and never answered
    cut_off: set[str] = field(default_factory=set)  # methods read, then the connection reset
    # method -> (status, Content-Type, body): answered so in the server's place, never forwarded
    answer: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)
    connections: int = 0  # connections from the client not yet closed (see open_connections)
    counting: threading.Lock = field(default_factory=threading.Lock)

    def methods(self) -> list[str]:
        return [s.method for s in self.sent]

    def open_connections(self, settle_s: float = 15.0) -> int:
        """Connections the client still holds open, once those it closed have had `settle_s`
        to be seen closed (a handler notices a closed connection within a few milliseconds on
        an idle machine; the bound is for a busy one, and a pass returns as soon as it is 0)."""
        end = time.monotonic() + settle_s
        while self.connections and time.monotonic() < end:
            time.sleep(0.02)
        return self.connections


def _closed_by_client(connection: socket.socket) -> bool:
    """The client closed its end: the socket reads as ready, with nothing (or a reset) to read."""
    if not select.select([connection], [], [], 0)[0]:
        return False
    try:
        return connection.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _handler(proxy: Proxy, upstream: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            with proxy.counting:
                proxy.connections += 1

        def finish(self) -> None:
            with proxy.counting:
                proxy.connections -= 1
            super().finish()

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
            proxy.sent.append(
                Sent(self.command, self.path, {k.lower(): v for k, v in headers.items()})
            )
            if self.command in proxy.refuse:  # a server that will not let this account do it
                self.send_response(proxy.refuse[self.command])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.command in proxy.answer:
                status, kind, text = proxy.answer[self.command]
                self.send_response(status)
                if kind:
                    self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(text.encode("utf-8"))))
                self.end_headers()
                self.wfile.write(text.encode("utf-8"))
                return
            if self.command in proxy.swallow:  # never answered (until the proxy stops)
                end = time.monotonic() + 30
                while not proxy.stopping.wait(0.02) and time.monotonic() < end:
                    if _closed_by_client(self.connection):
                        break
                self.close_connection = True
                return
            if self.command in proxy.cut_off:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
                self.close_connection = True
                return
            answer = niquests.request(
                self.command,
                upstream.rstrip("/") + self.path,
                data=body or None,
                headers=headers,
                timeout=10,
                allow_redirects=False,
            )
            content = answer.content or b""
            status = answer.status_code or 502
            if self.command in proxy.fail_once:  # a gateway error after the server did the work
                status, content = proxy.fail_once.pop(self.command), b""
            if proxy.rewrite is not None and content:
                content = proxy.rewrite(self.command, content.decode("utf-8")).encode("utf-8")
            if proxy.weak_etags and content:
                content = _ETAG_IN_XML.sub(r"\1W/\2", content.decode("utf-8")).encode("utf-8")
            proxy.stopping.wait(proxy.hold.get(self.command, 0.0))  # or until the proxy stops
            try:
                self.send_response(status)
                for name, value in answer.headers.items():
                    if name.lower() in _HOP_BY_HOP:
                        continue
                    if name.lower() == "etag" and proxy.weak_etags:
                        value = f"W/{value}"
                    self.send_header(name, value)
                if proxy.schedule_tag and self.command == "GET":
                    self.send_header("Schedule-Tag", proxy.schedule_tag)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
            except OSError:  # the client stopped waiting; the server did the work anyway
                self.close_connection = True

        do_GET = do_PUT = do_DELETE = do_PROPFIND = do_REPORT = do_OPTIONS = _forward
        do_MKCALENDAR = do_PROPPATCH = do_HEAD = do_POST = _forward

    return Handler


@contextmanager
def proxy_to(upstream: str) -> Iterator[Proxy]:
    """Serve until the block ends; the thread and its connections are closed afterwards."""
    proxy = Proxy(url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(proxy, upstream))
    server.daemon_threads = True
    proxy.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        proxy.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
