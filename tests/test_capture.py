"""Capture files: written word for word, never over another, read back exactly."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from commonplace.capture.inbox import (
    CaptureError,
    capture_id,
    parse_capture,
    read_capture,
    write_capture,
)
from commonplace.config import Settings

LONDON = ZoneInfo("Europe/London")


def test_write_capture_names_file_by_minute_with_frontmatter(settings: Settings) -> None:
    rel = write_capture(settings, "buy milk", "phone", datetime(2026, 10, 20, 8, 5, 59))
    assert rel == "Inbox/2026-10-20 0805.md"
    text = (settings.vault / rel).read_text()
    assert text == "---\ncaptured: 2026-10-20T08:05\nvia: phone\n---\nbuy milk"


def test_same_minute_gets_suffixes_and_never_overwrites(settings: Settings) -> None:
    now = datetime(2026, 10, 20, 8, 5)
    paths = [write_capture(settings, f"note {i}", "phone", now) for i in range(3)]
    assert paths == [
        "Inbox/2026-10-20 0805.md",
        "Inbox/2026-10-20 0805 2.md",
        "Inbox/2026-10-20 0805 3.md",
    ]
    bodies = [read_capture(settings.vault, p, LONDON).body for p in paths]
    assert bodies == ["note 0", "note 1", "note 2"]


def test_aware_time_is_converted_to_the_users_zone(settings: Settings) -> None:
    # 07:05 UTC on 20 Oct 2026 is 08:05 in London (BST).
    rel = write_capture(settings, "x", "phone", datetime(2026, 10, 20, 7, 5, tzinfo=UTC))
    assert rel.endswith("2026-10-20 0805.md")
    assert "captured: 2026-10-20T08:05" in (settings.vault / rel).read_text()


def test_logseq_inbox_is_under_pages(settings: Settings) -> None:
    logseq = dataclasses.replace(settings, flavor="logseq")
    rel = write_capture(logseq, "x", "phone", datetime(2026, 10, 20, 8, 5))
    assert rel == "pages/Inbox/2026-10-20 0805.md"


@pytest.mark.parametrize(("text", "via"), [("   \n", "phone"), ("ok", "two words"), ("ok", "")])
def test_bad_captures_are_refused(settings: Settings, text: str, via: str) -> None:
    with pytest.raises(CaptureError):
        write_capture(settings, text, via, datetime(2026, 10, 20, 8, 5))
    assert not (settings.vault / "Inbox").exists()


def test_parse_reads_time_via_and_exact_body() -> None:
    data = b"---\ncaptured: 2026-10-21T22:37\nvia: share\n---\n\n  Two\r\nlines  \n"
    cap = parse_capture("Inbox/x.md", data, LONDON)
    assert cap.captured == datetime(2026, 10, 21, 22, 37, tzinfo=LONDON)
    assert cap.via == "share"
    assert cap.body == "\n  Two\r\nlines  \n"
    assert cap.capture_id == capture_id("Inbox/x.md", cap.captured)


def test_time_falls_back_to_the_file_name_then_mtime() -> None:
    cap = parse_capture("Inbox/2026-10-22 1405.md", b"no frontmatter at all", LONDON)
    assert cap.captured == datetime(2026, 10, 22, 14, 5, tzinfo=LONDON)
    assert cap.body == "no frontmatter at all"
    assert cap.via == "file"
    stamp = datetime(2026, 1, 2, 3, 4, tzinfo=LONDON).timestamp()
    assert parse_capture("Inbox/idea.md", b"x", LONDON, stamp).captured.hour == 3


@pytest.mark.parametrize(
    "given", ["9999-12-31T23:59:59-12:00", "'9999-12-31T23:59:59-12:00'", "0001-01-01T00:00+14:00"]
)
def test_a_captured_time_at_the_calendars_edge_falls_back_to_the_file_name(given: str) -> None:
    """In London the first is in the year 10000, which Python cannot hold: the OverflowError
    failed every tidy of the capture (a traceback each time) and it was never filed."""
    data = f"---\ncaptured: {given}\n---\nring the garage\n".encode()
    cap = parse_capture("Inbox/2026-10-22 1405.md", data, LONDON)
    assert cap.captured == datetime(2026, 10, 22, 14, 5, tzinfo=LONDON)
    assert cap.body == "ring the garage\n"
    assert cap.captured_unread  # kept in the filed note as captured_original


def test_broken_frontmatter_stays_part_of_the_words() -> None:
    data = b"---\ncaptured: [unclosed\n---\nwords"
    cap = parse_capture("Inbox/2026-10-22 1405.md", data, LONDON)
    assert cap.body == data.decode()


def test_logseq_property_capture() -> None:
    data = b"captured:: 2026-10-22T14:05\nvia:: phone\n\n- book the dentist\n"
    cap = parse_capture("pages/Inbox/a.md", data, LONDON)
    assert cap.captured.hour == 14 and cap.via == "phone"
    assert cap.body == "- book the dentist\n"


@hsettings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1).filter(lambda t: t.strip() and "\x00" not in t))
def test_written_words_read_back_exactly(settings: Settings, text: str) -> None:
    rel = write_capture(settings, text, "phone", datetime(2026, 10, 20, 8, 5))
    try:
        assert read_capture(settings.vault, rel, LONDON).body == text
    finally:
        (settings.vault / rel).unlink()


def test_a_bom_before_broken_frontmatter_is_not_part_of_the_words() -> None:
    from commonplace.capture.inbox import split_capture

    meta, body = split_capture("\ufeff---\na: [broken\n---\nmy words\n")
    assert meta == {}
    assert body == "---\na: [broken\n---\nmy words\n"  # every word kept, the BOM not


def test_digest_and_tidy_read_a_capture_time_the_same_way() -> None:
    from commonplace.capture.inbox import captured_time
    from commonplace.digest.collect import captured_at
    from commonplace.vault import parse_note

    tz = ZoneInfo("Europe/London")
    note = parse_note("Inbox/2026-10-20_0805.md", "no frontmatter, a file name with '_'\n")
    assert captured_at(note, tz) == captured_time({}, note.path, tz)
    assert captured_at(note, tz) is not None


def test_a_capture_over_the_size_limit_is_not_saved(settings: Settings) -> None:
    small = dataclasses.replace(settings, tidy=dataclasses.replace(settings.tidy, max_capture_kb=1))
    with pytest.raises(CaptureError, match="over 1 KB"):
        write_capture(small, "words " * 200, "mcp", datetime(2026, 10, 20, 8, 5))
    assert not (small.vault / "Inbox").exists()
