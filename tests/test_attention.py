"""The attention list: entries with reasons, kept per (source, path), saved for `doctor`, and
shown by `doctor` only while the daemon that wrote them runs."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from commonplace.runtime.attention import Attention, Entry, attention_file, read_running, summary
from commonplace.runtime.lock import LOCK_NAME


def test_report_updates_counts_and_clears() -> None:
    now = [100.0]
    attention = Attention(clock=lambda: now[0])
    attention.report("tidy", "Inbox/a.md", "unreadable", "cannot be read (Permission denied)")
    now[0] = 130.0
    again = attention.report("tidy", "Inbox/a.md", "unreadable", "cannot be read", retry_at=160)
    assert (again.count, again.since, again.retry_at) == (2, 100.0, 160)
    other = attention.report("tidy", "Inbox/a.md", "too_large", "over the limit")
    assert (other.count, other.since) == (1, 130.0)  # a new kind of trouble starts afresh
    attention.report("job queue", "", "task_restarted", "stopped")
    assert [e.key for e in attention.entries()] == [("job queue", ""), ("tidy", "Inbox/a.md")]
    attention.clear("tidy", "Inbox/a.md")
    attention.clear("tidy", "Inbox/never.md")  # nothing to clear: no error
    assert [e.source for e in attention.entries()] == ["job queue"]


def test_replace_keeps_since_of_entries_still_there() -> None:
    now = [10.0]
    attention = Attention(clock=lambda: now[0])
    attention.report("tidy", "Inbox/x.md", "empty", "no words")
    first = [Entry("sync", "Inbox/a.sync-conflict-1.md", "conflict_copy", "a conflict copy")]
    attention.replace("sync", first)
    now[0] = 20.0
    both = [*first, Entry("sync", "Ask/q.sync-conflict-2.md", "conflict_copy", "a conflict copy")]
    attention.replace("sync", both)
    assert {e.path: e.since for e in attention.entries() if e.source == "sync"} == {
        "Inbox/a.sync-conflict-1.md": 10.0,
        "Ask/q.sync-conflict-2.md": 20.0,
    }
    attention.replace("sync", [])
    assert [e.source for e in attention.entries()] == ["tidy"]  # other sources untouched


def test_the_file_is_shown_only_while_its_daemon_runs(tmp_path: Path) -> None:
    attention = Attention(attention_file(tmp_path))
    attention.report("tidy", "Inbox/a.md", "unreadable", "cannot be read", action="chmod u+r")
    assert read_running(tmp_path) is None  # no lock: no daemon, the file is not believed
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": 0}
    (tmp_path / LOCK_NAME).write_text(json.dumps(lock))
    (entry,) = read_running(tmp_path) or []
    assert (entry.path, entry.code, entry.action) == ("Inbox/a.md", "unreadable", "chmod u+r")
    (tmp_path / LOCK_NAME).write_text(json.dumps(lock | {"pid": os.getppid()}))
    assert read_running(tmp_path) == []  # running, but the file was written by an earlier daemon


def test_a_running_daemon_with_nothing_to_report_is_running(tmp_path: Path) -> None:
    """The attention file is written at the first report: before it, the lock alone tells
    `doctor` the daemon runs (it used to say "not running" on a healthy daemon)."""
    assert read_running(tmp_path) is None
    lock = {"host": socket.gethostname(), "pid": os.getpid(), "started": 0}
    (tmp_path / LOCK_NAME).write_text(json.dumps(lock))
    assert read_running(tmp_path) == []
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    (tmp_path / LOCK_NAME).write_text(json.dumps(lock | {"pid": int(dead.stdout)}))
    assert read_running(tmp_path) is None  # a lock left by a process that has gone


def test_a_full_disk_does_not_stop_the_reporter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("commonplace.runtime.attention.write_json", full)
    attention = Attention(attention_file(tmp_path))
    attention.report("tidy", "Inbox/a.md", "write_failed", "could not be filed")
    assert [e.code for e in attention.entries()] == ["write_failed"]


def test_a_line_says_where_what_and_what_to_do() -> None:
    entry = Entry("tidy", "Inbox/a.md", "unreadable", "cannot be read", "chmod u+r", retry_at=0)
    assert entry.line().startswith("Inbox/a.md: cannot be read; chmod u+r (tried again at ")


def test_the_same_report_again_does_not_rewrite_the_file(tmp_path: Path) -> None:
    """A part that reports the same thing at each round (the lease held by another computer,
    every minute) counts up in memory; the file `doctor` reads is rewritten only when what it
    says changes."""
    now = [100.0]
    attention = Attention(attention_file(tmp_path), clock=lambda: now[0])
    report = ("lease", "", "held_elsewhere", "the daemon on desktop (pid 7) holds the lease")
    attention.report(*report, level="info")
    written = attention_file(tmp_path).stat()
    for _ in range(5):
        now[0] += 60
        entry = attention.report(*report, level="info")
    assert entry.count == 6 and attention.as_json()[0]["count"] == 6
    again = attention_file(tmp_path).stat()
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    attention.report("lease", "", "held_elsewhere", "the daemon on laptop (pid 9) holds it")
    assert "laptop" in attention_file(tmp_path).read_text()  # what it says changed


def test_files_with_the_same_trouble_read_as_one_line_from_three_on() -> None:
    def marked(path: str, retry_at: float) -> Entry:
        return Entry(
            "tidy",
            path,
            "bad_answer",
            "the model gave 3 unusable answers (last: it was not JSON)",
            action=f"edit it, or run: commonplace tidy '{path}'",
            retry_at=retry_at,
            since=retry_at - 100,
        )

    paths = [f"Inbox/{n}.md" for n in "abcde"]
    other = Entry("tidy", "Inbox/x.md", "unreadable", "cannot be read", action="chmod u+r")
    daemon = Entry("job queue", "", "crashed", "stopped: ValueError in daemon/jobs.py:1")
    entries = [marked(p, 50.0 - i) for i, p in enumerate(paths[:2])]
    entries += [other, *(marked(p, 50.0 - i) for i, p in enumerate(paths[2:], 2)), daemon]

    shown = summary(entries)
    assert [e.path for e in shown] == ["", "Inbox/x.md", ""]  # the group where its first was
    group = shown[0]
    assert group.reason == (
        "5 files (Inbox/a.md, Inbox/b.md, Inbox/c.md and 2 more): the model gave 3 unusable "
        "answers (last: it was not JSON)"
    )
    assert group.action == "edit it, or run: commonplace tidy 'Inbox/a.md' (the same for each file)"
    assert (group.retry_at, group.since, group.count, group.code) == (46.0, -54.0, 5, "bad_answer")
    assert shown[1] == other and shown[2] == daemon
    # Two alike stay two lines; a different reason or level is another trouble.
    assert summary(entries[:2]) == entries[:2]
    quieter = dataclasses.replace(entries[3], level="info")
    assert summary([*entries[:2], quieter]) == [*entries[:2], quieter]
