"""Pairing the Obsidian plugin without copying a token: ask, compare a code, confirm.

The plugin asks (POST /api/pair/request) and gets a short code and a long secret request id.
The daemon shows the same code on its phone page, in `commonplace plugin pair` and in its log;
the owner checks that it is the code Obsidian shows and confirms there. The plugin, asking with
its request id (POST /api/pair/poll), then gets a device token of its own, once.

What this rests on: only the places a plugin may connect from can ask (this computer, or the
ts.net name with the owner's Tailscale login: server/security.py); only the owner can confirm
(the phone page, or a program with the vault's own token such as `commonplace plugin pair`),
never the plugin itself; the code tells the owner *which* request they confirm, so a second
request made at the same moment by something else is not confirmed by mistake; only the holder
of the request id gets the token. Requests expire, few may wait at once, and few may be made in a
while (a flood of requests would only bury the real one).

All in memory: a pairing left waiting when the daemon stops is asked again. The clock is
injected, so every rule is tested without waiting.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from commonplace.plugin.devices import clean_name

EXPIRE_S = 300.0  # time to open the phone page or a terminal and confirm
MAX_WAITING = 3
MAX_PER_WINDOW = 10
WINDOW_S = 600.0

Status = Literal["waiting", "confirmed", "denied", "expired"]


class PairingRefused(Exception):
    """Too many requests: `retry_after` seconds until one more may be made."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class PairRequest:
    id: str  # the requester's secret: only it collects the token
    code: str  # six digits, shown on both sides
    device: str
    via: str  # "this computer" or the ts.net name
    made: float
    status: Status = "waiting"
    token: str | None = None
    device_id: str = ""

    def shown_code(self) -> str:
        return f"{self.code[:3]} {self.code[3:]}"

    def public(self, now: float) -> dict[str, object]:
        """What the owner's side sees: never the request id, never the token."""
        return {
            "code": self.shown_code(),
            "device": self.device,
            "via": self.via,
            "expires_in": max(0, round(self.made + EXPIRE_S - now)),
        }


@dataclass
class Pairing:
    """The waiting requests. `issue` makes the device's token (devices.add_device)."""

    issue: Callable[[str], tuple[str, str]]  # device name -> (device id, token)
    clock: Callable[[], float] = time.monotonic
    requests: dict[str, PairRequest] = field(default_factory=dict)
    recent: deque[float] = field(default_factory=deque)

    def _expire(self) -> float:
        now = self.clock()
        for key, req in list(self.requests.items()):
            if now - req.made >= EXPIRE_S:
                if req.status == "waiting":
                    req.status = "expired"
                if now - req.made >= 2 * EXPIRE_S:  # kept a while so a late poll hears why
                    del self.requests[key]
        while self.recent and now - self.recent[0] >= WINDOW_S:
            self.recent.popleft()
        return now

    def request(self, device: str, via: str) -> PairRequest:
        now = self._expire()
        waiting = self.waiting()
        if len(waiting) >= MAX_WAITING:
            soonest = min(r.made for r in waiting) + EXPIRE_S - now
            raise PairingRefused(
                f"{len(waiting)} pairing requests are already waiting for the owner; confirm or "
                "deny them (phone page or 'commonplace plugin pair'), or wait until they expire",
                max(1, round(soonest)),
            )
        if len(self.recent) >= MAX_PER_WINDOW:
            raise PairingRefused(
                f"more than {MAX_PER_WINDOW} pairing requests in {WINDOW_S / 60:.0f} minutes",
                max(1, round(self.recent[0] + WINDOW_S - now)),
            )
        taken = {r.code for r in waiting}
        code = f"{secrets.randbelow(10**6):06d}"
        while code in taken:
            code = f"{secrets.randbelow(10**6):06d}"
        req = PairRequest(secrets.token_urlsafe(32), code, clean_name(device), via, now)
        self.requests[req.id] = req
        self.recent.append(now)
        return req

    def waiting(self) -> list[PairRequest]:
        self._expire_quiet()
        return [r for r in self.requests.values() if r.status == "waiting"]

    def _expire_quiet(self) -> None:
        now = self.clock()
        for req in self.requests.values():
            if req.status == "waiting" and now - req.made >= EXPIRE_S:
                req.status = "expired"

    def _find(self, code: str) -> PairRequest | None:
        digits = "".join(ch for ch in code if ch.isdigit())
        return next((r for r in self.waiting() if secrets.compare_digest(r.code, digits)), None)

    def confirm(self, code: str) -> PairRequest | None:
        """The owner confirmed the request showing `code`: its device gets a token. None when no
        waiting request shows that code (expired, denied, mistyped)."""
        req = self._find(code)
        if req is None:
            return None
        req.device_id, req.token = self.issue(req.device)
        req.status = "confirmed"
        return req

    def deny(self, code: str) -> PairRequest | None:
        req = self._find(code)
        if req is not None:
            req.status = "denied"
        return req

    def poll(self, request_id: str) -> tuple[Status, str | None, str]:
        """(status, the token once when confirmed, the device id). An unknown id is 'expired'."""
        self._expire()
        req = self.requests.get(request_id)
        if req is None:
            return "expired", None, ""
        if req.status == "confirmed":
            del self.requests[request_id]  # the token is handed over once
            return "confirmed", req.token, req.device_id
        if req.status != "waiting":
            del self.requests[request_id]
        return req.status, None, ""
