"""Which network an address belongs to: this computer, the tailnet, a private network, or the
public internet. Used where the daemon decides where it may send something (push endpoints)
and where it warns about where notes travel (the model server's host).
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv6Address

IPAddress = IPv4Address | IPv6Address

# Tailscale gives devices addresses in the carrier-grade NAT range and in its own IPv6 prefix.
TAILNET_V4 = ipaddress.ip_network("100.64.0.0/10")
TAILNET_V6 = ipaddress.ip_network("fd7a:115c:a1e0::/48")
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # IPv6 addresses that stand for IPv4 ones


def parse_ip(host: str) -> IPAddress | None:
    """The address in `host` ('10.0.0.1', '[::1]', 'fe80::1%eth0'), or None for a name."""
    text = host.strip().removeprefix("[").removesuffix("]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def unwrap(ip: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one stands for (mapped, NAT64, 6to4, Teredo), else itself: a
    check on `::ffff:127.0.0.1` must be a check on 127.0.0.1."""
    if isinstance(ip, IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in NAT64:
            return IPv4Address(int(ip) & 0xFFFFFFFF)
        if ip.sixtofour is not None:
            return ip.sixtofour
        if ip.teredo is not None:
            return ip.teredo[1]
    return ip


def is_tailnet(ip: IPAddress) -> bool:
    ip = unwrap(ip)
    return ip in TAILNET_V4 if isinstance(ip, IPv4Address) else ip in TAILNET_V6


def non_public_reason(ip: IPAddress) -> str | None:
    """Why `ip` is not an address on the public internet, or None when it is one."""
    ip = unwrap(ip)
    if ip.is_loopback:
        return "is this computer (loopback)"
    if ip.is_unspecified:
        return "is the unspecified address"
    if is_tailnet(ip):
        return "is a tailnet or carrier-grade NAT address (100.64.0.0/10)"
    if ip.is_link_local:
        return "is link-local (169.254.0.0/16, where cloud metadata services answer)"
    if ip.is_multicast:
        return "is a multicast address"
    if ip.is_reserved:
        return "is a reserved address"
    if ip.is_private:
        return "is on a private network"
    if not ip.is_global:
        return "is a reserved address"
    return None
