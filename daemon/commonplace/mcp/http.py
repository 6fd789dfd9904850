"""`commonplace mcp --http`: the same server over streamable HTTP, for clients that connect by
URL. Three locks on that door, all the SDK's own machinery:

- it listens on 127.0.0.1 only (there is no option to change that);
- the SDK's DNS-rebinding protection is on, with exactly this port's local names allowed, so a
  web page that points its own name at 127.0.0.1 is refused (421) before anything runs;
- every request carries the vault's token (`commonplace token`) as `Authorization: Bearer`,
  checked by a TokenVerifier in constant time and read from its file at each request, so a
  rotated token works without a restart; without it the answer is 401.
"""

from __future__ import annotations

import hmac
import socket
from collections.abc import Callable

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl

LOOPBACK = "127.0.0.1"
PATH = "/mcp"


class FileTokenVerifier:
    """The vault's API token is the only bearer token accepted."""

    def __init__(self, token: Callable[[], str | None]) -> None:
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        expected = self.token()
        if not expected or not hmac.compare_digest(token.encode(), expected.encode()):
            return None
        return AccessToken(token=token, client_id="commonplace-owner", scopes=[])


def http_auth(port: int, token: Callable[[], str | None]) -> tuple[FileTokenVerifier, AuthSettings]:
    """The token check for build_server. No OAuth discovery is offered: the token comes from
    `commonplace token`, not from an authorization server."""
    issuer = AnyHttpUrl(f"http://{LOOPBACK}:{port}")
    settings = AuthSettings(issuer_url=issuer, resource_server_url=None)
    return FileTokenVerifier(token), settings


def local_names(port: int) -> list[str]:
    return [f"{LOOPBACK}:{port}", f"localhost:{port}", f"[::1]:{port}"]


def security(port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection with exactly this port's local names (not the SDK's default
    wildcard ports: another local service's name is not ours either)."""
    names = local_names(port)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=names,
        allowed_origins=[f"http://{name}" for name in names],
    )


def port_is_free(port: int) -> bool:
    """Checked before starting, so a taken port is one clear sentence, not a server's log."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


async def serve(server: MCPServer, port: int) -> None:
    """Serve on 127.0.0.1:`port` until interrupted (uvicorn, inside the SDK, handles Ctrl-C and
    SIGTERM). `server` must carry the token check (build_server(auth=http_auth(...)))."""
    if server.settings.auth is None:
        raise ValueError("the HTTP server needs the token check: build_server(auth=http_auth())")
    await server.run_streamable_http_async(
        host=LOOPBACK, port=port, streamable_http_path=PATH, transport_security=security(port)
    )
