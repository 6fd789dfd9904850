"""A name lookup for tests: names map to chosen addresses, and nothing touches real DNS."""

from __future__ import annotations

import socket

from aiohttp.abc import AbstractResolver, ResolveResult


class FakeResolver(AbstractResolver):
    def __init__(self, names: dict[str, list[str]] | None = None) -> None:
        self.names = names or {}
        self.asked: list[str] = []

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
            for address in self.names[host]
        ]

    async def close(self) -> None:
        return None
