"""The MCP tools through the running daemon's JSON API, with the daemon's bearer token.

The MCP server is not a browser and sends no Origin: it proves itself with the token from the
vault's data folder (`commonplace token`). A daemon that refuses the token is not this vault's
daemon (or the token was just rotated), and the client is told so instead of writing anywhere.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from commonplace.config import Settings
from commonplace.mcp.backend import BackendError
from commonplace.runtime.lock import running_daemon

log = logging.getLogger(__name__)

SHORT_TIMEOUT_S = 30.0  # search, capture, a question for the owner
WILDCARDS = ("", "0.0.0.0", "::", "[::]")


def daemon_url(settings: Settings) -> str:
    """Where this vault's daemon listens, as seen from this computer."""
    host = settings.web.host.strip()
    if host in WILDCARDS:
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    # The running daemon's lock names the port it listens on: the truth whenever it says one.
    # `[web] port = 0` lets the system pick; and a daemon started with another port than this
    # process reads (COMMONPLACE_WEB_PORT in its terminal, or the config edited since) is still
    # this vault's daemon: asking the configured port instead failed every capture and question
    # with "not answering; try again in a moment", for as long as the daemon ran.
    daemon = running_daemon(settings.data_path)
    port = daemon.port if daemon is not None and daemon.port else settings.web.port
    return f"http://{host}:{port}"


class DaemonBackend:
    def __init__(
        self, settings: Settings, token: Callable[[], str], base_url: str | None = None
    ) -> None:
        self.settings = settings
        self._base_url = base_url.rstrip("/") if base_url else None
        self.token = token  # read at each call: `commonplace token --rotate` needs no restart
        self._session: aiohttp.ClientSession | None = None
        model = settings.model
        # An answer may wait for the model, its retries and backoff, like the daemon does.
        self.ask_timeout_s = model.timeout_s * (model.retries + 1) + 60.0

    @property
    def base_url(self) -> str:
        """Looked up at each call: a daemon restarted meanwhile may listen on another port."""
        return self._base_url or daemon_url(self.settings).rstrip("/")

    async def search(self, query: str, limit: int, mode: str, folder: str) -> dict[str, Any]:
        # chunks=1: passages, as the local backend gives (the API groups by note by default)
        params = {"q": query, "limit": str(limit), "mode": mode, "chunks": "1"}
        if folder:
            params["folder"] = folder
        return await self._call("GET", "/api/search", params=params)

    async def ask(self, question: str) -> dict[str, Any]:
        body = {"question": question}
        return await self._call("POST", "/api/ask", json=body, seconds=self.ask_timeout_s)

    async def tasks(self, today: date, due_within_days: int | None) -> dict[str, Any]:
        # The daemon keeps the list read: no read of the vault here (a big vault's first read
        # is about 14 s of CPU, for each client that starts an MCP server).
        params = {"today": today.isoformat()}
        if due_within_days is not None:
            params["due_within_days"] = str(due_within_days)
        return await self._call("GET", "/api/tasks", params=params)

    async def capture(self, text: str) -> str:
        answer = await self._call("POST", "/api/capture", json={"text": text, "via": "mcp"})
        return str(answer["path"])

    async def propose(self, tool: str, arguments: dict[str, Any], client: str) -> dict[str, Any]:
        body = {"tool": tool, "arguments": arguments, "source": "mcp", "client": client}
        return await self._call("POST", "/api/assistant/propose", json=body)

    async def close(self) -> None:
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        json: dict[str, Any] | None = None,
        seconds: float = SHORT_TIMEOUT_S,
    ) -> dict[str, Any]:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        try:
            token = self.token()
        except OSError as exc:
            raise BackendError(
                f"the daemon's token cannot be read or made ({exc}); run 'commonplace token'"
            ) from None
        base_url = self.base_url
        # The daemon knows itself as localhost, whichever address it listens on.
        port = urlsplit(base_url).port or 80
        headers = {"Authorization": f"Bearer {token}", "Host": f"localhost:{port}"}
        try:
            async with self._session.request(
                method,
                base_url + path,
                params=params,
                json=json,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=seconds),
            ) as response:
                body = await _json_body(response)
        except TimeoutError:
            raise BackendError(
                f"the Commonplace daemon did not answer within {seconds:.0f} s; try again"
            ) from None
        except aiohttp.ClientError as exc:
            raise BackendError(
                f"the Commonplace daemon at {base_url} is not answering ({type(exc).__name__})"
                "; it may be starting or stopping: try again in a moment"
            ) from None
        if response.status in (401, 403):
            log.warning("the daemon refused %s %s: %s", method, path, _message(body))
            raise BackendError(
                f"the daemon at {base_url} refused this server ({_message(body)}). If it "
                "serves another vault, give both the same config; if the token was just "
                "rotated, restart the MCP client"
            )
        if response.status == 404 and body.get("error") == _NO_ROUTE:
            # The router's own 404: an older daemon still running after an upgrade (it runs
            # the version it started with), asked for an address only newer ones have.
            log.warning("the daemon has no %s %s: it is older than this server", method, path)
            raise BackendError(
                f"the Commonplace daemon at {base_url} does not know {path}: it is an "
                "older version than this MCP server (after an upgrade it runs the old one "
                "until it is restarted). Restart the daemon, then try again"
            )
        if response.status >= 400:
            raise BackendError(_message(body))
        return body


_NO_ROUTE = {"code": "not_found", "message": "Not Found"}  # what the daemon's router says


async def _json_body(response: aiohttp.ClientResponse) -> dict[str, Any]:
    try:
        body = await response.json(content_type=None)
    except (ValueError, aiohttp.ContentTypeError):
        body = None
    if not isinstance(body, dict):
        raise BackendError(f"the daemon answered HTTP {response.status} without JSON")
    return body


def _message(body: dict[str, Any]) -> str:
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return "the daemon refused the request"
