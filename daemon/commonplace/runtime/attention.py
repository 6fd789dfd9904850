"""What needs the owner's attention: files the daemon skips or keeps failing on, and why.

A part of the daemon that leaves something undone which the owner would expect done (a capture
it cannot read or that is over the size limit, a sync-conflict copy, a write that keeps failing,
a task that crashed) reports it here, not only in the log, so that `/api/state` ("attention")
and `commonplace doctor` show it with what to do. One entry per (source, path): reporting again
updates it (and counts), and the part clears it once the thing is handled.

The daemon keeps a copy in the data folder (`attention.json`) so that `doctor`, another process,
shows what the running daemon sees. Entries never carry the words of a note, only paths, counts,
error names and times. The copy is rewritten when what it says changes, not when a part reports
the same thing again and only the count goes up (the lease held by another computer is reported
at every heartbeat): `doctor` shows no counts, /api/state shows them from memory, and an idle
daemon should not rewrite a file every minute to say the same thing.

    attention.report("tidy", "Inbox/x.md", "unreadable", "cannot be read (Permission denied)",
                     action="let this user read it (chmod u+r)", retry_at=time.time() + 30)
    attention.clear("tidy", "Inbox/x.md")
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from commonplace.runtime.lock import running_daemon
from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)

FILE_NAME = "attention.json"
Level = Literal["info", "warn"]


@dataclass(frozen=True)
class Entry:
    source: str  # the part that reports it: "tidy", "ask", "sync", "job queue", ...
    path: str  # the vault-relative file concerned; "" for the daemon's own parts
    code: str  # short and stable, for programs: "unreadable", "too_large", "conflict_copy", ...
    reason: str  # what happened, for a person
    action: str = ""  # what the owner can do; "" when it sorts itself out
    level: Level = "warn"
    retry_at: float | None = None  # wall-clock time of the next automatic try; None: none
    since: float = 0.0  # wall-clock time it was first reported
    count: int = 1  # reports in a row (tries that failed, restarts, ...)

    @property
    def key(self) -> tuple[str, str]:
        return (self.source, self.path)

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def line(self) -> str:
        """One line for `doctor` and the log: where, what, what to do, when it is tried again."""
        where = f"{self.path}: " if self.path else ""
        text = f"{where}{self.reason}"
        if self.action:
            text += f"; {self.action}"
        if self.retry_at is not None:
            at = time.strftime("%H:%M", time.localtime(self.retry_at))
            text += f" (tried again at {at})"
        return text


GROUP_FROM = 3  # files with the same trouble shown as one line from this many on
_SHOWN_IN_GROUP = 3  # of a group's files, named in its line


def summary(entries: Iterable[Entry]) -> list[Entry]:
    """The entries as a person should read them: files with the same trouble (same part, code,
    reason and advice, and the same level) become one entry once there are GROUP_FROM or more,
    naming the first few and how many more. A chat model that answers garbage marks every
    capture in the inbox: twenty identical lines in doctor and on the phone page said less
    than one. Order is kept (a group stands where its first file was); a group's next try is
    its soonest."""
    entries = list(entries)
    groups: dict[tuple[Any, ...], list[Entry]] = {}
    for e in entries:
        groups.setdefault(_group_key(e), []).append(e)
    out: list[Entry] = []
    done: set[tuple[Any, ...]] = set()
    for e in entries:
        key = _group_key(e)
        members = groups[key]
        if not e.path or len(members) < GROUP_FROM:
            out.append(e)
            continue
        if key in done:
            continue
        done.add(key)
        paths = [m.path for m in members]
        named = ", ".join(paths[:_SHOWN_IN_GROUP])
        more = len(paths) - _SHOWN_IN_GROUP
        files = f"{named} and {more} more" if more > 0 else named
        retries = [m.retry_at for m in members if m.retry_at is not None]
        action = e.action.replace(e.path, paths[0])
        if e.path in e.action:
            action += " (the same for each file)"
        out.append(
            dataclasses.replace(
                e,
                path="",
                reason=f"{len(paths)} files ({files}): {e.reason}",
                action=action,
                retry_at=min(retries) if retries else None,
                since=min(m.since for m in members),
                count=sum(m.count for m in members),
            )
        )
    return out


def _group_key(e: Entry) -> tuple[Any, ...]:
    """What must match for two files' entries to be one trouble (the advice may name the file)."""
    return (
        e.source,
        e.code,
        e.level,
        e.reason,
        e.action.replace(e.path, "\0") if e.path else e.action,
    )


def entry_from_json(raw: Any) -> Entry | None:
    try:
        return Entry(**{f.name: raw[f.name] for f in dataclasses.fields(Entry) if f.name in raw})
    except (TypeError, KeyError):
        return None


class Attention:
    """The daemon's list of entries; `file` (if given) gets a copy after every change."""

    def __init__(self, file: Path | None = None, *, clock: Callable[[], float] = time.time) -> None:
        self.file = file
        self.clock = clock
        self._entries: dict[tuple[str, str], Entry] = {}
        self._save_failed = False

    def report(
        self,
        source: str,
        path: str,
        code: str,
        reason: str,
        *,
        action: str = "",
        level: Level = "warn",
        retry_at: float | None = None,
    ) -> Entry:
        """Add or update the entry for (source, path); a repeat of the same code counts up."""
        old = self._entries.get((source, path))
        same = old is not None and old.code == code
        entry = Entry(
            source=source,
            path=path,
            code=code,
            reason=reason,
            action=action,
            level=level,
            retry_at=retry_at,
            since=old.since if old is not None and same else self.clock(),
            count=old.count + 1 if old is not None and same else 1,
        )
        self._entries[entry.key] = entry
        if old is None or dataclasses.replace(old, count=entry.count) != entry:
            self._save()
        return entry

    def clear(self, source: str, path: str = "") -> None:
        if self._entries.pop((source, path), None) is not None:
            self._save()

    def replace(self, source: str, entries: Iterable[Entry]) -> None:
        """Make `entries` the whole list for `source` (for parts that find them by a scan)."""
        fresh = {e.key: e for e in entries if e.source == source}
        old = {k: e for k, e in self._entries.items() if k[0] == source}
        for key, entry in fresh.items():
            if key in old and old[key].code == entry.code:
                fresh[key] = dataclasses.replace(entry, since=old[key].since)
            elif not entry.since:
                fresh[key] = dataclasses.replace(entry, since=self.clock())
        if fresh == old:
            return
        for key in old:
            del self._entries[key]
        self._entries.update(fresh)
        self._save()

    def get(self, source: str, path: str = "") -> Entry | None:
        return self._entries.get((source, path))

    def entries(self) -> list[Entry]:
        return sorted(self._entries.values(), key=lambda e: (e.source, e.path))

    def as_json(self) -> list[dict[str, Any]]:
        return [e.as_json() for e in self.entries()]

    def _save(self) -> None:
        if self.file is None:
            return
        try:
            write_json(
                self.file, {"pid": os.getpid(), "updated": self.clock(), "entries": self.as_json()}
            )
        except OSError as exc:  # a full disk must not stop the part that reports it
            if not self._save_failed:
                log.warning("%s cannot be written (%s); /api/state still shows it", self.file, exc)
            self._save_failed = True
        else:
            self._save_failed = False


def attention_file(data_path: Path) -> Path:
    return data_path / FILE_NAME


def read_running(data_path: Path) -> list[Entry] | None:
    """The running daemon's entries, or None when no daemon runs on this vault (on this computer).

    For `doctor`: the lock says whether a daemon runs; the file is only believed while the
    daemon that wrote it holds the lock (a file left by an earlier daemon is not its list).
    """
    lock = running_daemon(data_path)
    if lock is None:
        return None
    raw = read_json(attention_file(data_path))
    if not isinstance(raw, dict) or lock.pid != raw.get("pid"):
        return []  # running, and nothing reported yet: the file is written at the first report
    found = (entry_from_json(e) for e in raw.get("entries", []) if isinstance(e, dict))
    return [e for e in found if e is not None]
