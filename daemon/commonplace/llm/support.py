"""Which Ollama this program supports, and where notes go when they are sent to a model server.

Two warnings, shown by `doctor` and logged (and listed in /api/state) when the daemon starts:

- an Ollama older than MIN_VERSION: 0.5.0 is the release that added structured outputs (a JSON
  schema in `format`), which tidy and the digest rely on; an older one ignores or refuses the
  schema, and every tidy answer fails. `[ollama] think` needs 0.9.0 (the `think` field; older
  ones ignore it, so a thinking model thinks first, which is slower).
- a plain-http Ollama at an address that is neither this computer nor the tailnet: every note,
  capture and question sent to the model would cross the network unencrypted. Loopback, a
  tailnet address (100.64.0.0/10, fd7a:115c:a1e0::/48, a *.ts.net name; WireGuard encrypts it)
  and https are fine.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from commonplace.basics.net import IPAddress, is_tailnet, parse_ip, unwrap
from commonplace.config import Settings
from commonplace.llm.servers import Server

MIN_VERSION = (0, 5, 0)  # structured outputs with a JSON schema
THINK_VERSION = (0, 9, 0)  # the `think` request field
Lookup = Callable[[str], Awaitable[list[str]]]


def parse_version(text: str) -> tuple[int, int, int] | None:
    """'0.12.6' -> (0, 12, 6); '0.5.0-rc1' -> (0, 5, 0); None when it is not a version."""
    match = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not match:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def version_warnings(think: str, version: str) -> list[str]:
    found = parse_version(version)
    if found is None:
        return []
    shown = ".".join(map(str, MIN_VERSION))
    if found < MIN_VERSION:
        return [
            f"Ollama {version} is older than {shown}, the oldest this program supports "
            "(structured outputs with a JSON schema arrived in 0.5.0): tidying and the digest "
            "will fail. Update Ollama (https://ollama.com/download)."
        ]
    if think and found < THINK_VERSION:
        return [
            f"Ollama {version} ignores [model] think = {think!r} (the think field "
            "arrived in 0.9.0), so a thinking model will think first, which is slower; "
            "update Ollama"
        ]
    return []


async def system_lookup(host: str) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def host_warning(
    host_url: str, lookup: Lookup = system_lookup, name: str = "Ollama"
) -> str | None:
    """A warning when notes would travel to the model server (`name`) unencrypted over a
    network, else None."""
    parts = urlsplit(host_url)
    host = (parts.hostname or "").rstrip(".").lower()
    if parts.scheme == "https" or not host:
        return None
    if host == "localhost" or host.endswith((".localhost", ".ts.net")):
        return None
    ip = parse_ip(host)
    if ip is not None:
        addresses: list[IPAddress] = [ip]
    else:
        try:
            async with asyncio.timeout(3):
                found = await lookup(host)
        except (OSError, TimeoutError):
            return (
                f"{name}'s host {host} cannot be looked up now, so it is not known whether notes "
                "sent to it stay on this computer or the tailnet"
            )
        addresses = [a for a in (parse_ip(text) for text in found) if a is not None]
    if addresses and all(_local_or_tailnet(a) for a in addresses):
        return None
    return (
        f"{name} is at {host_url}: plain http to an address outside this computer and the "
        "tailnet, so every note, capture and question sent to the model crosses the network "
        f"unencrypted. Run {name} here, reach it over Tailscale, or put it behind https."
    )


def _local_or_tailnet(ip: IPAddress) -> bool:
    """This computer (0.0.0.0 connects here too) or a device on the tailnet."""
    ip = unwrap(ip)
    return ip.is_loopback or ip.is_unspecified or is_tailnet(ip)


def addresses(settings: Settings, *servers: Server) -> list[tuple[str, str]]:
    """(name, configured address) of each model server notes are sent to: the address in the
    settings, which is where they go (the built-in engine is this computer)."""
    found: dict[str, str] = {}
    for server in servers:
        if server.kind == "ollama":
            found[settings.ollama.host] = "Ollama"
        elif server.kind != "builtin":
            for url in (settings.openai.base_url, settings.openai.embed_base_url):
                if url and server.url.startswith(url.rstrip("/")):
                    found[url] = server.name
    return [(name, url) for url, name in found.items()]
