"""What Tailscale says about this computer: its tailnet name and whose it is (for `[web]
ts_name` and `owner_login`), and whether `tailscale serve` passes the phone page on.

Read from `tailscale status --json` (ipn/ipnstate.Status: BackendState, Self.DNSName with a
trailing dot, Self.UserID, User[id].LoginName) and `tailscale serve status --json`
(ipn.ServeConfig: Web[host:port].Handlers[path].Proxy), through the same seam as the service
managers (service/tools.call), so tests use a fake `tailscale` on PATH.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from commonplace.service.tools import call, installed


@dataclass(frozen=True)
class Tailnet:
    state: str  # "Running", "NeedsLogin", "Stopped", ...
    dns_name: str  # laptop.tail1234.ts.net, no trailing dot
    login: str  # the owner's login, e.g. you@example.com

    @property
    def running(self) -> bool:
        return self.state == "Running" and bool(self.dns_name)


class TailscaleMissing(Exception):
    """`tailscale` is not installed, or did not answer; the message says which."""


def tailnet_status() -> Tailnet:
    if not installed("tailscale"):
        raise TailscaleMissing("tailscale is not installed")
    done = call("tailscale", "status", "--json", timeout_s=15)
    try:
        raw = json.loads(done.out) if done.out.strip() else None
    except ValueError:
        raw = None
    if not isinstance(raw, dict):
        raise TailscaleMissing(f"tailscale status did not answer ({done.why()})")
    self_node = _table(raw.get("Self"))
    user = _table(_table(raw.get("User")).get(str(self_node.get("UserID", ""))))
    return Tailnet(
        state=str(raw.get("BackendState", "")),
        dns_name=str(self_node.get("DNSName", "")).rstrip("."),
        login=str(user.get("LoginName", "")),
    )


def _table(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def serve_command(port: int) -> str:
    return f"tailscale serve --bg {port}"


def serves_port(port: int) -> bool | None:
    """Whether `tailscale serve` proxies to this port on this computer (None: cannot tell)."""
    done = call("tailscale", "serve", "status", "--json", timeout_s=15)
    if not done.ok:
        return None
    try:
        raw = json.loads(done.out) if done.out.strip() else {}
    except ValueError:
        return None
    return port in set(_proxied_ports(raw))


def _proxied_ports(config: Any) -> list[int]:
    """Ports named by every Proxy of a ServeConfig (and its Foreground ones): the forms
    `tailscale serve` writes, http://127.0.0.1:8765, localhost:8765 and 8765."""
    if not isinstance(config, dict):
        return []
    ports = []
    for web in (config.get("Web") or {}).values():
        for handler in ((web or {}).get("Handlers") or {}).values():
            proxy = str((handler or {}).get("Proxy", ""))
            found = re.search(r"(?::|^)(\d{1,5})/?$", proxy.split("://")[-1])
            if found:
                ports.append(int(found[1]))
    for nested in (config.get("Foreground") or {}).values():
        ports += _proxied_ports(nested)
    return ports
