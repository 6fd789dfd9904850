"""The vault lease: which computer's daemon tidies captures, answers Ask notes, writes digests.

The lock in the data folder (runtime/lock.py) keeps a second daemon off one computer. Two computers
that sync one vault (Syncthing, Dropbox, iCloud) each have their own data folder, cannot see each
other's lock, and would both file the same capture. So the daemon that writes keeps a small
lease inside the vault, `.commonplace/lease.json` (a hidden folder: never a note, never indexed,
ignored by the watcher), and renews it every `heartbeat_s`; the sync tool carries it to the
other computers. While another daemon's lease is fresh, a daemon leaves the inbox, the Ask notes
and the digest alone, and still serves search, capture and the phone page.

Fresh is judged by this computer's clock alone, by watching the file change: the clocks of two
computers disagree (sometimes by minutes), so the time written in a heartbeat is shown to people
but never compared with ours. A lease that has not changed for `stale_s` (its daemon stopped,
crashed or went to sleep) is taken over. A daemon that finds its lease taken (it was asleep, and
the other took over) steps back at its next heartbeat. A lease written by this data folder's own
earlier run (a crash, then a restart) is taken back at once. A clean stop marks it released, so
another computer takes over without waiting.

Two daemons that claim a free lease at the same moment both write it; the sync tool keeps one
version (the other becomes a conflict copy) and the loser steps back at its next heartbeat. The
tidy stage also checks the vault for a filed note with the capture's id just before writing, so a
capture is not filed twice in that moment either, unless the other's note has not synced yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from commonplace.config import LeaseSettings
from commonplace.runtime.attention import Attention
from commonplace.runtime.statefile import write_json
from commonplace.vault import FileRefused, read_file, replace_file

log = logging.getLogger(__name__)

LEASE_DIR = ".commonplace"
LEASE_FILE = "lease.json"
LEASE_MAX_BYTES = 64 * 1024  # a lease is a few hundred bytes; anything far larger is not one
ID_FILE = "lease-id"  # in the data folder: who "this daemon" is, across restarts
WRITE_RETRY_S = 5.0  # a heartbeat that could not be written is tried again this soon


@dataclass(frozen=True)
class LeaseInfo:
    """What the lease file says (written by whichever daemon holds it)."""

    holder: str  # the holder's id (its data folder's ID_FILE)
    host: str
    pid: int
    started: float  # the holder's clock: for people, never compared with ours
    beat: int
    heartbeat: float  # the holder's clock, as above
    released: bool = False

    @classmethod
    def parse(cls, raw: Any) -> LeaseInfo | None:
        try:
            return cls(
                holder=str(raw["holder"]),
                host=str(raw["host"]),
                pid=int(raw["pid"]),
                started=float(raw["started"]),
                beat=int(raw["beat"]),
                heartbeat=float(raw["heartbeat"]),
                released=bool(raw.get("released", False)),
            )
        except (TypeError, KeyError, ValueError):
            return None

    def who(self) -> str:
        return f"{self.host} (pid {self.pid})"


def lease_path(vault: Path) -> Path:
    return vault / LEASE_DIR / LEASE_FILE


def read_lease(vault: Path) -> tuple[LeaseInfo | None, bytes | None]:
    """(the lease, its raw signature) as the sync tool left it. The signature is None when
    there is no lease at all; an unreadable lease (a torn write, a placeholder iCloud has not
    downloaded) has a signature but no info, and counts as held by someone unknown."""
    path = lease_path(vault)
    try:  # by the vault's read rule: never through a link, never blocking, never huge
        data = read_file(vault, f"{LEASE_DIR}/{LEASE_FILE}", LEASE_MAX_BYTES)[0]
    except FileRefused as exc:  # a link, a FIFO, a file far too big: not a lease we can read
        try:
            st = path.lstat()
        except OSError:
            return None, f"refused {exc.reason}".encode()
        return None, f"refused {st.st_mode} {st.st_mtime_ns} {st.st_size}".encode()
    except FileNotFoundError:
        placeholder = path.with_name(f".{LEASE_FILE}.icloud")  # evicted by iCloud
        try:
            st = placeholder.stat()
        except OSError:
            return None, None
        return None, f"icloud {st.st_mtime_ns} {st.st_size}".encode()
    except OSError as exc:
        return None, f"unreadable {exc.errno}".encode()
    try:
        return LeaseInfo.parse(json.loads(data)), data
    except ValueError:
        return None, data


def daemon_id(data_path: Path, *, create: bool = True) -> str | None:
    """This data folder's lease id, made once. Two computers (or two data folders on one)
    are two daemons, even when they have the same host name."""
    path = data_path / ID_FILE
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        if not create:
            return None
    new = secrets.token_hex(8)
    replace_file(path, new + "\n")
    return new


def describe_lease(
    vault: Path, data_path: Path, settings: LeaseSettings, now: float
) -> tuple[bool, str]:
    """(worth a warning, one line) for `doctor`: who holds the lease. A one-shot command cannot
    watch the file change, so the heartbeat's age is read from the holder's clock, and said so."""
    info, raw = read_lease(vault)
    if raw is None:
        return False, "no daemon holds this vault's lease yet; the first one started takes it"
    if info is None:
        return True, (
            f"{lease_path(vault)} cannot be read; a daemon started here takes the lease over "
            f"after {settings.stale_s:.0f} s"
        )
    age = _ago(now - info.heartbeat)
    if info.released:
        return False, f"free (last held by {info.who()}, released {age} ago)"
    if info.holder == daemon_id(data_path, create=False):
        return False, f"held by this computer, {info.who()}; last heartbeat {age} ago"
    line = (
        f"held by {info.who()}, last heartbeat {age} ago by its clock: only that computer tidies "
        "captures, answers Ask notes and writes digests; a daemon here serves search and capture"
    )
    stale = now - info.heartbeat > settings.stale_s
    if stale:
        line += (
            ". It looks stopped: a daemon started here takes the lease over after "
            f"{settings.stale_s:.0f} s without a heartbeat"
        )
    return stale, line


def _ago(seconds: float) -> str:
    s = max(0, round(seconds))
    if s < 120:
        return f"{s} s"
    if s < 7200:
        return f"{s // 60} min"
    return f"{s // 3600} h" if s < 172800 else f"{s // 86400} days"


Step = Literal["renew", "take", "take over", "step back", "keep off"]


def decide(
    info: LeaseInfo | None,
    raw: bytes | None,
    *,
    me: str,
    held: bool,
    quiet_s: float,
    stale_s: float,
) -> Step:
    """What to do about the lease as it is now. `quiet_s`: how long (by our clock) the file has
    been unchanged."""
    if info is not None and info.holder == me:
        return "take" if info.released else "renew"  # ours: this run's, or a crashed run's
    if raw is None or (info is not None and info.released):
        return "take"  # nobody holds it
    if held:
        # Someone else's lease replaced ours; an unreadable one (a torn write) is ours to mend.
        return "step back" if info is not None else "renew"
    return "take over" if quiet_s >= stale_s else "keep off"


class VaultLease:
    """This daemon's view of the lease; `check()` once per heartbeat (two small file reads,
    and a write while it holds the lease)."""

    def __init__(
        self,
        vault: Path,
        data_path: Path,
        settings: LeaseSettings,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.vault = vault
        self.settings = settings
        self.clock = clock
        self.wall = wall
        try:
            self.me = daemon_id(data_path) or secrets.token_hex(8)
        except OSError:  # a full disk: this run is a daemon of its own (never a crash's heir)
            self.me = secrets.token_hex(8)
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.started = wall()
        self.held = False
        self.other: LeaseInfo | None = None  # the holder, when it is not us
        self.write_error = ""  # why the last heartbeat could not be written, or ""
        self._beat = 0
        self._seen: bytes | None = None
        self._seen_at = clock()

    def check(self) -> bool:
        """Renew, take, keep off or step back, as the lease file says now; returns `held`."""
        info, raw = read_lease(self.vault)
        now = self.clock()
        if raw != self._seen:
            self._seen, self._seen_at = raw, now
        quiet = now - self._seen_at
        step = decide(
            info, raw, me=self.me, held=self.held, quiet_s=quiet, stale_s=self.settings.stale_s
        )
        if step == "step back":
            log.warning(
                "vault lease: taken over by %s (was this computer asleep, or its sync stopped, "
                "for more than %.0f s?); tidying, Ask answers and digests now happen there",
                info.who() if info else "another daemon",
                self.settings.stale_s,
            )
        elif step == "take over":
            log.warning(
                "vault lease: %s has not renewed it for %.0f s; this computer takes it over",
                info.who() if info else "the daemon that wrote an unreadable lease",
                quiet,
            )
        if step in ("renew", "take", "take over"):
            if info is not None and info.holder == self.me:
                self._beat = max(self._beat, info.beat)
            self._try_write()
            self._set(held=True, other=None)
        else:
            self._set(held=False, other=info)
        return self.held

    def release(self) -> None:
        """On a clean stop: mark it released, so another computer need not wait."""
        if self.held:
            info, _ = read_lease(self.vault)
            if info is not None and info.holder == self.me:
                with contextlib.suppress(OSError):  # then it goes stale, as after a crash
                    self._write(released=True)
            self.held = False

    def status(self) -> dict[str, Any]:
        """For /api/state: who holds the vault's lease, as far as this daemon can see."""
        if self.held:
            holder: dict[str, Any] | None = {"host": self.host, "pid": self.pid}
        else:
            holder = {"host": self.other.host, "pid": self.other.pid} if self.other else None
        return {
            "held_here": self.held,
            "holder": holder,
            "unchanged_s": round(self.clock() - self._seen_at, 1),
            "stale_s": self.settings.stale_s,
        }

    def _set(self, *, held: bool, other: LeaseInfo | None) -> None:
        if held and not self.held:
            log.info("vault lease: this computer (%s) tidies captures and answers", self.host)
        new_holder = other is not None and (self.other is None or self.other.holder != other.holder)
        if not held and new_holder and other is not None:
            log.info(
                "vault lease: held by %s; this daemon serves search and capture and leaves "
                "tidying, Ask answers and digests to it",
                other.who(),
            )
        self.held, self.other = held, other

    def _try_write(self) -> None:
        """Write the heartbeat. A write that fails (a full disk, a read-only vault) does not
        give the lease up: by the rules it is ours, the stages' own writes report the trouble,
        and the next heartbeat writes it again. `write_error` says why, meanwhile."""
        try:
            self._write()
        except OSError as exc:
            if not self.write_error:
                log.warning("vault lease: %s cannot be written (%s)", lease_path(self.vault), exc)
            self.write_error = exc.strerror or str(exc)
        else:
            self.write_error = ""

    def _write(self, *, released: bool = False) -> None:
        self._beat += 1
        info = LeaseInfo(
            self.me, self.host, self.pid, self.started, self._beat, self.wall(), released
        )
        path = lease_path(self.vault)
        write_json(path, asdict(info))
        self._seen, self._seen_at = read_lease(self.vault)[1], self.clock()


async def check_lease(lease: VaultLease, attention: Attention | None = None) -> bool:
    """One check, in a thread (a synced folder can be slow to write); what it found goes to
    attention."""
    await asyncio.to_thread(lease.check)
    if attention is None:
        return lease.held
    if lease.write_error:
        attention.report(
            "lease",
            "",
            "lease_unwritable",
            f"the vault's lease file cannot be written ({lease.write_error}); other computers "
            "syncing this vault cannot see that this one tidies it",
            action=f"free some space, or let the daemon's user write in {lease.vault / LEASE_DIR}",
        )
    elif lease.held or lease.other is None:
        attention.clear("lease")
    else:
        attention.report(
            "lease",
            "",
            "held_elsewhere",
            f"the daemon on {lease.other.who()} holds the vault's lease: it files captures, "
            "answers Ask notes and writes digests; this one serves search and capture",
            level="info",
        )
    return lease.held


async def keep_lease(
    lease: VaultLease, on_won: Callable[[], None], attention: Attention | None = None
) -> None:
    """Check every heartbeat, forever; `on_won` when this daemon takes the lease (a scan then
    hands it the inbox and the Ask notes at once)."""
    while True:
        wait = lease.settings.heartbeat_s
        await asyncio.sleep(min(wait, WRITE_RETRY_S) if lease.write_error else wait)
        was = lease.held
        if await check_lease(lease, attention) and not was:
            on_won()
