"""Atomic writes: exact bytes, no clobbering, no temp files left behind."""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.config import Settings
from commonplace.vault import (
    FileChanged,
    VaultBusy,
    atomic_write,
    content_hash,
    file_hash,
    fit_name,
    remove_file,
    write_trouble,
)


def test_new_file_is_written_exactly(tmp_path: Path) -> None:
    path = tmp_path / "Filed" / "2026-10-19 0812 Lunch.md"
    atomic_write(path, "line one\r\nline two\n", expect=None)
    assert path.read_bytes() == b"line one\r\nline two\n"  # no newline translation
    assert list(path.parent.iterdir()) == [path]  # no temp file left


@pytest.mark.parametrize(
    "name",
    ["n" * 252 + ".md", "ü" * 125 + ".md", "🚀" * 62 + ".md"],
    ids=["ascii", "two-byte", "four-byte"],
)
def test_a_name_at_the_file_systems_limit_is_written_and_replaced(
    tmp_path: Path, name: str
) -> None:
    """The temp file beside it adds to the name: a note whose own name is near 255 bytes (an
    Ask note named after a long question) could not be written at all."""
    assert len(name.encode("utf-8")) <= 255
    path = tmp_path / name
    atomic_write(path, "first", expect=None)
    atomic_write(path, "first\nan answer", expect=content_hash(b"first"))
    assert path.read_text(encoding="utf-8") == "first\nan answer"
    assert list(tmp_path.iterdir()) == [path]


def test_fit_name_keeps_whole_characters_and_the_extension() -> None:
    assert fit_name("short.md") == "short.md"
    long = "1234567890abcdef 0123456789ab " + "é" * 120 + ".md"
    fitted = fit_name(long)
    assert len(fitted.encode("utf-8")) <= 255
    assert fitted.startswith("1234567890abcdef 0123456789ab é") and fitted.endswith("é.md")
    assert fit_name("x" * 300).startswith("x") and len(fit_name("x" * 300)) == 255


def test_new_file_never_overwrites_an_existing_one(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_text("the user's words")
    with pytest.raises(FileChanged, match="already exists"):
        atomic_write(path, "ours", expect=None)
    assert path.read_text() == "the user's words"
    assert list(tmp_path.iterdir()) == [path]


def test_replace_when_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "Ask" / "q.md"
    path.parent.mkdir()
    path.write_text("?? question\n")
    seen = file_hash(path)
    assert seen == content_hash(b"?? question\n")
    atomic_write(path, "?? question\n> answer\n", expect=seen)
    assert path.read_text() == "?? question\n> answer\n"


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "q.md"
    path.write_text("?? question\n")
    seen = file_hash(path)
    path.write_text("?? question\nthe user kept typing\n")  # between our read and our write
    with pytest.raises(FileChanged, match="changed since it was read"):
        atomic_write(path, "?? question\n> answer\n", expect=seen)
    assert path.read_text() == "?? question\nthe user kept typing\n"
    assert [p.name for p in tmp_path.iterdir()] == ["q.md"]


def test_a_deleted_file_is_not_recreated(tmp_path: Path) -> None:
    path = tmp_path / "q.md"
    path.write_text("x")
    seen = file_hash(path)
    path.unlink()
    with pytest.raises(FileChanged, match="deleted"):
        atomic_write(path, "y", expect=seen)
    assert not path.exists()


def test_falls_back_when_hard_links_are_not_supported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_link(src: object, dst: object) -> None:
        raise PermissionError("no hard links here")

    monkeypatch.setattr(os, "link", no_link)
    path = tmp_path / "n.md"
    atomic_write(path, "first", expect=None)
    assert path.read_text() == "first"
    with pytest.raises(FileChanged):
        atomic_write(path, "second", expect=None)


@settings(deadline=None)  # each example fsyncs: on a busy disk that alone can take 200 ms
@given(st.text())
def test_any_text_round_trips_byte_for_byte(text: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "n.md"
        atomic_write(path, text, expect=None)
        assert path.read_bytes() == text.encode("utf-8")


def test_a_write_waits_for_git_then_goes_ahead(tmp_path: Path) -> None:
    lock = tmp_path / ".git" / "index.lock"
    lock.parent.mkdir()
    lock.write_text("")
    threading.Timer(0.3, lock.unlink).start()  # the commit finishes
    started = time.monotonic()
    atomic_write(tmp_path / "Filed" / "note.md", "words", expect=None, git_wait_s=5)
    assert time.monotonic() - started >= 0.25
    assert (tmp_path / "Filed" / "note.md").read_text() == "words"


def test_a_write_gives_up_for_now_while_git_keeps_the_lock(tmp_path: Path) -> None:
    (tmp_path / "worktree-gitdir").mkdir()
    (tmp_path / "worktree-gitdir" / "index.lock").write_text("")
    (tmp_path / ".git").write_text(f"gitdir: {tmp_path / 'worktree-gitdir'}\n")  # a worktree
    path = tmp_path / "Ask" / "q.md"
    path.parent.mkdir()
    path.write_text("?? question\n")
    with pytest.raises(VaultBusy, match=r"index\.lock") as caught:
        atomic_write(path, "?? question\n> answer\n", expect=file_hash(path), git_wait_s=0.1)
    assert isinstance(caught.value, OSError)  # so writers that retry failed writes retry it
    assert path.read_text() == "?? question\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["q.md"]  # no temp file left


def test_a_file_that_cannot_be_read_at_removal_stays_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An I/O error while checking what was moved aside (a flaky network mount) puts it back:
    it must not stay hidden under a dot name until the next start."""
    from commonplace.vault import atomic

    note = tmp_path / "Inbox" / "cap.md"
    note.parent.mkdir()
    note.write_text("words")
    read = file_hash(note)
    assert read is not None

    def flaky(path: Path) -> str | None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic, "file_hash", flaky)
    with pytest.raises(OSError, match="Input/output"):
        remove_file(note, read)
    assert [p.name for p in note.parent.iterdir()] == ["cap.md"]
    assert note.read_text() == "words"


def test_remove_file_deletes_only_what_was_read(tmp_path: Path) -> None:
    note = tmp_path / "Inbox" / "a.md"
    note.parent.mkdir()
    note.write_text("the words as read")
    read = content_hash(note.read_bytes())
    note.write_text("the words as read, and more")  # the owner typed meanwhile
    with pytest.raises(FileChanged):
        remove_file(note, read)
    assert note.read_text() == "the words as read, and more"
    assert remove_file(note, content_hash(note.read_bytes())) is True
    assert not note.exists()
    assert remove_file(note, read) is False  # already gone: nothing to do
    note.symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(FileChanged):
        remove_file(note, read)  # a link is never what was read
    assert note.is_symlink()


def test_write_trouble_says_what_to_do(tmp_path: Path) -> None:
    lock = tmp_path / ".git" / "index.lock"
    busy = write_trouble(VaultBusy(lock))
    assert (busy.code, busy.why) == ("vault_busy", "a git operation is running in the vault")
    assert busy.action == f"wait for git to finish; if no git command is running, delete {lock}"


@pytest.mark.parametrize(
    ("error", "why", "action"),
    [
        (errno.ENOSPC, "the disk is full", "free some space on the vault's disk"),
        (errno.EDQUOT, "the disk is full", "free some space on the vault's disk"),
        (errno.EROFS, "the vault's disk is read-only", "make the disk writable again"),
        (errno.EACCES, "permission denied", "let the daemon's user write in the vault's folders"),
        (errno.EPERM, "permission denied", "let the daemon's user write in the vault's folders"),
        (errno.EIO, "Input/output error", "check the vault's disk (free space, permissions)"),
    ],
)
def test_write_trouble_words_what_the_owner_can_fix(error: int, why: str, action: str) -> None:
    """One wording for every stage that writes to the vault (capture, tidy, Ask, the
    assistant's notes): the assistant had its own, clearer one, now the only one."""
    trouble = write_trouble(OSError(error, os.strerror(error), "/vault/Inbox/x.md"))
    assert (trouble.code, trouble.why) == ("write_failed", why)
    assert trouble.action.startswith(action)


def _deliver(path: Path, text: str) -> None:
    """What a sync tool does with another computer's version: a temp file renamed over."""
    tmp = path.with_name(".syncthing." + path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def deliver_after_the_check(monkeypatch: pytest.MonkeyPatch, note: Path, words: str) -> None:
    """A sync tool renames `words` into place at `note` just after remove_file has read the
    copy it moved aside."""
    from commonplace.vault import atomic

    real = atomic.file_hash

    def hash_then_delivery(path: Path) -> str | None:
        found = real(path)
        _deliver(note, words)
        return found

    monkeypatch.setattr(atomic, "file_hash", hash_then_delivery)


def test_a_version_delivered_just_after_the_check_is_never_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check and the delete are two steps: a version renamed into place between them is new
    words (edited on the phone a moment ago), and must stay."""
    note = tmp_path / "Inbox" / "a.md"
    note.parent.mkdir()
    note.write_text("the words as read")
    read = content_hash(note.read_bytes())
    deliver_after_the_check(monkeypatch, note, "the words as read, and what the phone added")
    assert remove_file(note, read) is True  # what was read is gone...
    assert note.read_text() == "the words as read, and what the phone added"  # ...not this
    assert sorted(p.name for p in note.parent.iterdir()) == ["a.md"]


def test_a_changed_file_is_put_back_beside_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "Inbox" / "a.md"
    note.parent.mkdir()
    note.write_text("the words as read")
    read = content_hash(note.read_bytes())
    note.write_text("the words as read, edited")
    deliver_after_the_check(monkeypatch, note, "a third version, from the phone")
    with pytest.raises(FileChanged):
        remove_file(note, read)
    texts = {p.name: p.read_text() for p in note.parent.iterdir()}
    assert texts.pop("a.md") == "a third version, from the phone"
    [(kept, text)] = texts.items()
    assert text == "the words as read, edited"
    assert kept.startswith("a (conflict ") and kept.endswith(").md")


def test_a_file_a_crash_left_half_removed_is_put_back(tmp_path: Path) -> None:
    from commonplace.vault.atomic import REMOVING_SUFFIX, restore_removals

    inbox = tmp_path / "Inbox"
    inbox.mkdir()
    old = time.time() - 60
    for name, text in [("a.md", "words"), ("b.md", "earlier words")]:
        aside = inbox / f".{name}.1a2b3c4d{REMOVING_SUFFIX}"
        aside.write_text(text)
    (inbox / "b.md").write_text("newer words")  # the name was taken meanwhile
    time.sleep(1.1)
    young = inbox / f".c.md.5e6f7a8b{REMOVING_SUFFIX}"
    young.write_text("a removal in progress elsewhere")
    os.utime(young, (old, old))  # old words, moved aside just now: the move's time counts
    assert sorted(restore_removals(tmp_path, older_than_s=1.0)) == [
        "Inbox/a.md",
        "Inbox/b (conflict 1a2b3c4d).md",
    ]
    texts = {p.name: p.read_text() for p in inbox.iterdir()}
    assert texts == {
        "a.md": "words",
        "b.md": "newer words",
        "b (conflict 1a2b3c4d).md": "earlier words",
        young.name: "a removal in progress elsewhere",
    }


LONG = "2026-10-20 0805 " + "長" * 75 + ".md"  # 243 bytes: no room for `.<name>.<tag>.cpremoving`


def test_a_name_near_the_limit_is_removed_put_back_and_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file moved aside for a delete keeps its own name in a hidden folder when the name
    has no room for the usual suffix (the rename failed: such a capture was never filed)."""
    from commonplace.vault import atomic
    from commonplace.vault.atomic import REMOVING_SUFFIX, restore_removals

    inbox = tmp_path / "Inbox"
    inbox.mkdir()
    note = inbox / LONG
    note.write_text("the words as read")
    read = content_hash(note.read_bytes())
    note.write_text("the words, edited")
    with pytest.raises(FileChanged):
        remove_file(note, read)
    assert [p.name for p in inbox.iterdir()] == [LONG]  # put back, no folder left
    assert remove_file(note, content_hash(note.read_bytes())) is True
    assert list(inbox.iterdir()) == []

    note.write_text("the words as read")
    real = atomic.file_hash

    def hash_then_delivery(path: Path) -> str | None:
        found = real(path)
        tmp = inbox / ".syncthing.tmp"  # a sync tool's short temp name, renamed over
        tmp.write_text("a newer version")
        tmp.replace(note)
        return found

    monkeypatch.setattr(atomic, "file_hash", hash_then_delivery)
    note.write_text("edited again")
    with pytest.raises(FileChanged):
        remove_file(note, read)
    monkeypatch.setattr(atomic, "file_hash", real)
    texts = {p.name: p.read_text() for p in inbox.iterdir()}
    assert texts.pop(LONG) == "a newer version"
    [(kept, text)] = texts.items()
    assert text == "edited again" and "(conflict " in kept and len(kept.encode()) <= 255
    for p in inbox.iterdir():
        p.unlink()

    crashed = inbox / f".1a2b3c4d{REMOVING_SUFFIX}"  # a crash between the rename and the check
    crashed.mkdir()
    (crashed / LONG).write_text("the only copy of these words")
    monkeypatch.setattr(atomic, "_clock", lambda: time.time() + 60)  # the crash was a minute ago
    assert restore_removals(tmp_path) == [f"Inbox/{LONG}"]
    assert [(p.name, p.read_text()) for p in inbox.iterdir()] == [
        (LONG, "the only copy of these words")
    ]


def test_the_daemon_puts_back_what_a_crash_left_aside_at_start(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from commonplace.daemon.run import clean_up_after_a_crash
    from commonplace.vault import atomic
    from commonplace.vault.atomic import REMOVING_SUFFIX

    monkeypatch.setattr(atomic, "_clock", lambda: time.time() + 60)  # the crash was a minute ago
    left = {
        settings.vault / "Inbox" / "2026-10-19 0800.md": "buy flour",
        settings.vault / "Filed" / "2026-10-19 0800 Flour.md": "---\n---\nbuy flour",
    }
    for path, text in left.items():
        path.parent.mkdir(exist_ok=True)
        aside = path.with_name(f".{path.name}.0badc0de{REMOVING_SUFFIX}")
        aside.write_text(text)
    clean_up_after_a_crash(settings)
    assert {p: p.read_text() for p in left} == left
    assert not any(p.name.endswith(REMOVING_SUFFIX) for p in settings.vault.rglob(".*"))


def test_without_hard_links_a_file_delivered_after_the_check_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On exFAT or an SMB mount (no hard links) put_back renamed after checking that the name
    was free: a version a sync tool delivered in between was replaced. The rename itself now
    refuses to replace (renameat2 / renamex_np), and the file put back becomes a conflict copy."""
    from commonplace.vault import atomic
    from commonplace.vault.atomic import REMOVING_SUFFIX, put_back
    from commonplace.vault.exclusive import _native

    def no_links(*args: object, **kwargs: object) -> None:
        raise PermissionError("no hard links here")

    path = tmp_path / "a.md"
    aside = tmp_path / f".a.md.1a2b3c4d{REMOVING_SUFFIX}"
    aside.write_text("the words put back")
    path.write_text("a newer version, delivered just after the check")
    monkeypatch.setattr(atomic.os, "link", no_links)
    monkeypatch.setattr(atomic.os.path, "lexists", lambda p: False)  # the check came first
    if _native() is None:
        pytest.skip("this system has no rename that refuses to replace")
    kept = put_back(aside, path)
    assert path.read_text() == "a newer version, delivered just after the check"
    assert kept.name == "a (conflict 1a2b3c4d).md" and kept.read_text() == "the words put back"


def test_an_empty_aside_folder_is_left_while_a_removal_may_be_about_to_use_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long name's removal makes its hidden folder, then renames the file into it: a restore
    running meanwhile (the daemon's periodic one) must not take the folder away in between (the
    rename would fail and the removal believe the file already gone)."""
    from commonplace.vault import atomic
    from commonplace.vault.atomic import REMOVING_SUFFIX, removal_wait_s, restore_removals

    folder = tmp_path / f".1a2b3c4d{REMOVING_SUFFIX}"
    folder.mkdir()
    assert restore_removals(tmp_path) == [] and folder.is_dir()
    assert removal_wait_s(tmp_path) is None  # an empty folder holds nothing to put back
    monkeypatch.setattr(atomic, "_clock", lambda: time.time() + 60)
    assert restore_removals(tmp_path) == [] and not folder.exists()  # a crash's leftover: gone
