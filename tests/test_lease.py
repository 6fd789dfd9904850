"""The vault lease between two daemons on one synced vault, with fake clocks: who holds it,
taking over a lease nobody renews, stepping back, clock skew, a crash and a clean stop."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest

from commonplace.config import ConfigError, LeaseSettings
from commonplace.daemon import lease as lease_module
from commonplace.daemon.lease import (
    LeaseInfo,
    VaultLease,
    decide,
    describe_lease,
    lease_path,
    read_lease,
)
from commonplace.vault import iter_note_paths

SETTINGS = LeaseSettings(heartbeat_s=10.0, stale_s=60.0)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def daemon(vault: Path, data: Path, clock: Clock, wall: Clock | None = None) -> VaultLease:
    return VaultLease(vault, data, SETTINGS, clock=clock, wall=wall or clock)


def test_one_holds_the_other_keeps_off_then_takes_over_and_the_first_steps_back(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    clock_a, clock_b = Clock(), Clock(5000.0)  # unrelated monotonic clocks
    a = daemon(vault, tmp_path / "data-a", clock_a)
    b = daemon(vault, tmp_path / "data-b", clock_b)
    assert a.check() is True
    assert b.check() is False
    assert b.status()["holder"] == {"host": a.host, "pid": a.pid}
    for _ in range(10):  # a renews every heartbeat: b keeps off however long it watches
        clock_a.now += 10
        clock_b.now += 10
        assert a.check() and not b.check()
    clock_b.now += 59  # a stops renewing (asleep); not yet stale by b's clock
    assert b.check() is False
    clock_b.now += 1
    assert b.check() is True  # unchanged for stale_s: taken over
    clock_a.now += 3600  # a wakes up
    assert a.check() is False  # and steps back instead of renewing
    clock_b.now += 10
    assert b.check() is True


def test_clock_skew_between_computers_does_not_matter(tmp_path: Path) -> None:
    """a's wall clock is three hours slow, so its heartbeats look ancient to b: b still
    keeps off while the lease keeps changing."""
    vault = tmp_path / "vault"
    vault.mkdir()
    clock = Clock()
    a = daemon(vault, tmp_path / "data-a", clock, wall=Clock(1_800_000_000.0 - 3 * 3600))
    b = daemon(vault, tmp_path / "data-b", clock, wall=Clock(1_800_000_000.0))
    assert a.check()
    for _ in range(20):
        clock.now += 10
        assert a.check() and not b.check()


def test_a_crashed_daemon_takes_its_lease_back_at_once_and_a_clean_stop_frees_it(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    clock = Clock()
    a = daemon(vault, tmp_path / "data-a", clock)
    assert a.check()
    restarted = daemon(vault, tmp_path / "data-a", clock)  # same data folder, new process
    assert restarted.check() is True
    b = daemon(vault, tmp_path / "data-b", clock)
    assert b.check() is False
    restarted.release()
    assert LeaseInfo.parse(json.loads(lease_path(vault).read_text())).released  # type: ignore[union-attr]
    assert b.check() is True  # no waiting for stale_s


def test_a_deleted_or_unreadable_lease(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    clock = Clock()
    a = daemon(vault, tmp_path / "data-a", clock)
    assert a.check()
    lease_path(vault).unlink()
    assert a.check() and lease_path(vault).exists()  # deleted under it: written again
    b = daemon(vault, tmp_path / "data-b", clock)
    lease_path(vault).write_text("{not json")  # a torn write by a sync tool
    assert b.check() is False  # unknown holder: wait
    assert a.check() is True  # the holder mends it
    assert b.check() is False


def test_the_lease_is_read_by_the_vault_rule(tmp_path: Path) -> None:
    """A link, a FIFO or a huge file at the lease's place is never followed, blocked on or read
    whole: it is a lease held by someone unknown, as a torn write is."""
    vault = tmp_path / "vault"
    vault.mkdir()
    a = daemon(vault, tmp_path / "data-a", Clock())
    assert a.check()
    theirs = tmp_path / "theirs.json"
    theirs.write_bytes(lease_path(vault).read_bytes())  # a fresh, readable lease elsewhere
    lease_path(vault).unlink()
    lease_path(vault).symlink_to(theirs)
    info, raw = read_lease(vault)
    assert info is None and raw  # not followed
    lease_path(vault).unlink()
    lease_path(vault).write_bytes(b" " * (2 * 1024 * 1024))
    info, raw = read_lease(vault)
    assert info is None and raw is not None and len(raw) < 1024  # not read whole
    lease_path(vault).unlink()
    os.mkfifo(lease_path(vault))
    found: list[tuple[object, bytes | None]] = []
    reader = threading.Thread(target=lambda: found.append(read_lease(vault)), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # opening the FIFO for writing lets the blocked reader go
        with lease_path(vault).open("wb"):
            pass
        reader.join(10)
        pytest.fail("reading the lease blocked on a FIFO")
    assert found[0][0] is None and found[0][1]


@pytest.mark.parametrize(
    ("mine", "raw", "released", "held", "quiet", "step"),
    [
        (True, True, False, False, 0, "renew"),
        (True, True, True, False, 0, "take"),
        (False, False, False, False, 0, "take"),
        (False, True, True, False, 0, "take"),
        (False, True, False, True, 0, "step back"),
        (False, True, False, False, 59, "keep off"),
        (False, True, False, False, 60, "take over"),
    ],
)
def test_decide(mine: bool, raw: bool, released: bool, held: bool, quiet: float, step: str) -> None:
    info = LeaseInfo("me" if mine else "other", "host", 1, 0.0, 1, 0.0, released)
    got = decide(
        info if raw else None, b"x" if raw else None, me="me", held=held, quiet_s=quiet, stale_s=60
    )
    assert got == step


def test_the_lease_is_not_a_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    daemon(vault, tmp_path / "data", Clock()).check()
    assert lease_path(vault).exists()
    assert list(iter_note_paths(vault)) == []


def test_doctor_says_who_holds_it(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    wall = Clock(1_800_000_000.0)
    a = daemon(vault, tmp_path / "data-a", Clock(), wall=wall)
    assert describe_lease(vault, tmp_path / "data-b", SETTINGS, wall.now) == (
        False,
        "no daemon holds this vault's lease yet; the first one started takes it",
    )
    a.check()
    warn, line = describe_lease(vault, tmp_path / "data-b", SETTINGS, wall.now + 5)
    assert not warn and line.startswith(f"held by {a.host} (pid {a.pid}), last heartbeat 5 s ago")
    warn, line = describe_lease(vault, tmp_path / "data-a", SETTINGS, wall.now + 5)
    assert not warn and line.startswith("held by this computer")
    warn, line = describe_lease(vault, tmp_path / "data-b", SETTINGS, wall.now + 3 * 86400)
    assert warn and "3 days ago" in line and "It looks stopped" in line


def test_stale_must_outlast_a_few_heartbeats() -> None:
    with pytest.raises(ConfigError, match=r"lease\.stale_s"):
        LeaseSettings(heartbeat_s=60.0, stale_s=90.0)


def test_a_heartbeat_that_cannot_be_written_keeps_the_lease(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk at start-up: by the rules the lease is this daemon's, so it goes on (its
    stages report their own failed writes) and writes the heartbeat once there is space."""
    vault = tmp_path / "vault"
    vault.mkdir()
    full = OSError(errno.ENOSPC, "No space left on device")

    def no_space(*args: object, **kwargs: object) -> None:
        raise full

    monkeypatch.setattr(lease_module, "write_json", no_space)
    a = daemon(vault, tmp_path / "data-a", Clock())
    assert a.check() is True and a.write_error == "No space left on device"
    assert not lease_path(vault).exists()
    monkeypatch.undo()
    assert a.check() is True and a.write_error == "" and lease_path(vault).exists()
