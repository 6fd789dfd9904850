"""Logseq journal page names: the date patterns Logseq offers, and logseq/config.edn's settings."""

from __future__ import annotations

import logging
import os
from datetime import date, timedelta
from pathlib import Path

import pytest

from commonplace.vault.datepattern import PatternError, format_day, parse_day
from commonplace.vault.journals import journal_names, journal_names_from
from commonplace.vault.notes import page_name, parse_note, read_note

# logseq.common.date/built-in-journal-title-formatters: every format Logseq's settings offer.
OFFERED = (
    "do MMM yyyy",
    "do MMMM yyyy",
    "MMM do, yyyy",
    "MMMM do, yyyy",
    "E, dd-MM-yyyy",
    "E, dd.MM.yyyy",
    "E, MM/dd/yyyy",
    "E, yyyy/MM/dd",
    "EEE, dd-MM-yyyy",
    "EEE, dd.MM.yyyy",
    "EEE, MM/dd/yyyy",
    "EEE, yyyy/MM/dd",
    "EEEE, dd-MM-yyyy",
    "EEEE, dd.MM.yyyy",
    "EEEE, MM/dd/yyyy",
    "EEEE, yyyy/MM/dd",
    "dd-MM-yyyy",
    "MM/dd/yyyy",
    "MM-dd-yyyy",
    "MM_dd_yyyy",
    "yyyy/MM/dd",
    "yyyy-MM-dd",
    "yyyy-MM-dd EEE",
    "yyyy-MM-dd EEEE",
    "yyyy_MM_dd",
    "yyyyMMdd",
    "yyyy年MM月dd日",
)
NOV_30 = date(2026, 11, 30)  # a Monday


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("MMM do, yyyy", "Nov 30th, 2026"),
        ("MMMM do, yyyy", "November 30th, 2026"),
        ("do MMM yyyy", "30th Nov 2026"),
        ("E, dd.MM.yyyy", "Mon, 30.11.2026"),
        ("EEEE, dd.MM.yyyy", "Monday, 30.11.2026"),
        ("EEEE, MM/dd/yyyy", "Monday, 11/30/2026"),
        ("yyyy-MM-dd EEE", "2026-11-30 Mon"),
        ("yyyyMMdd", "20261130"),
        ("yyyy年MM月dd日", "2026年11月30日"),
        ("d/M/yy", "30/11/26"),
        ("'Day' d 'of' MMMM, '' e", "Day 30 of November, ' 1"),
    ],
)
def test_a_day_is_written_as_logseq_writes_it(pattern: str, expected: str) -> None:
    assert format_day(pattern, NOV_30) == expected


def test_ordinal_days_and_padding() -> None:
    days = [date(2026, 5, d) for d in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31)]
    assert [format_day("do", d) for d in days] == [
        *("1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st")
    ]
    assert format_day("MMM do, yyyy", date(2026, 3, 5)) == "Mar 5th, 2026"
    assert format_day("E, dd-MM-yyyy", date(2026, 3, 5)) == "Thu, 05-03-2026"


@pytest.mark.parametrize("pattern", OFFERED)
def test_every_offered_format_reads_back_what_it_writes(pattern: str) -> None:
    day = date(2025, 12, 25)
    while day < date(2027, 1, 10):
        title = format_day(pattern, day)
        assert parse_day(pattern, title) == day, title
        assert parse_day(pattern, title.upper()) == day  # Logseq capitalises before reading
        day += timedelta(days=17)


def test_reading_takes_the_whole_name_and_real_days_only() -> None:
    assert parse_day("yyyy-MM-dd", "2026-11-30 1405") is None  # a capture's name
    assert parse_day("yyyy-MM-dd", "2026-02-30") is None
    assert parse_day("MMM do, yyyy", "November 30th, 2026") == NOV_30  # cljs-time: full too
    assert parse_day("MMM do, yyyy", "Shed roof") is None
    assert parse_day("MMMM yyyy", "November 2026") is None  # names no day
    # Logseq 0.10 names days in English whatever its language (cljs-time knows no other).
    assert parse_day("EEEE, dd.MM.yyyy", "Montag, 30.11.2026") is None
    assert parse_day("do MMMM yyyy", "30th Novembre 2026") is None


@pytest.mark.parametrize("pattern", ["HH:mm yyyy-MM-dd", "yyyy-MM-dd a", "Q yyyy", "o yyyy", ""])
def test_a_format_without_a_way_to_read_it_is_refused(pattern: str) -> None:
    with pytest.raises(PatternError):
        format_day(pattern, NOV_30)


def test_config_edn_settings_are_read_and_comments_skipped() -> None:
    default = journal_names_from(
        '{:meta/version 1\n ;; :journal/page-title-format "EEE, dd.MM.yyyy"\n'
        ' ;; :journal/file-name-format "yyyyMMdd"\n :hidden []}\n'
    )
    assert (default.title_format, default.file_format, default.directory) == (
        "MMM do, yyyy",
        "yyyy_MM_dd",
        "journals",
    )
    custom = journal_names_from(
        '{:journal/page-title-format "EEEE, dd.MM.yyyy" ; the owner\'s choice\n'
        ' :journal/file-name-format "yyyyMMdd", :journals-directory "daily"}'
    )
    assert (custom.title_format, custom.file_format, custom.directory) == (
        "EEEE, dd.MM.yyyy",
        "yyyyMMdd",
        "daily",
    )
    assert journal_names_from('{:date-formatter "yyyy-MM-dd"}').title_format == "yyyy-MM-dd"
    bad = journal_names_from('{:journal/page-title-format "HH:mm, yyyy-MM-dd"}')
    assert bad.title_format == "MMM do, yyyy"
    assert "'HH' is not a day, month or year field" in bad.problems[0]


@pytest.mark.parametrize("pattern", ["'", "'Journal'", "yyyy", "MMM do", "EEEE"])
def test_a_title_format_that_names_every_day_alike_is_replaced_by_the_default(
    pattern: str,
) -> None:
    names = journal_names_from(f'{{:journal/page-title-format "{pattern}"}}')
    assert names.title_format == "MMM do, yyyy"
    assert "must name the day, the month and the year" in names.problems[0]


def test_journal_titles_in_a_logseq_graph() -> None:
    own = journal_names_from('{:journal/page-title-format "EEEE, dd.MM.yyyy"}')
    assert parse_note("journals/2026_11_30.md", "- went out\n", "logseq").title == (
        "Nov 30th, 2026"
    )
    assert parse_note("journals/2026_11_30.md", "- x\n", "logseq", own).title == (
        "Monday, 30.11.2026"
    )
    # Logseq reads any page named like a day as that day's journal, and a title:: too.
    assert parse_note("pages/2026-11-30.md", "- x\n", "logseq", own).title == ("Monday, 30.11.2026")
    assert parse_note("pages/Trip.md", "title:: Nov 30th, 2026\n", "logseq", own).title == (
        "Monday, 30.11.2026"
    )
    # Ordinary pages, captures, namespaces, and every other kind of vault keep their names.
    assert parse_note("pages/Shed roof.md", "- x\n", "logseq", own).title == "Shed roof"
    assert parse_note("pages/Inbox/2026-11-30 1405.md", "x", "logseq").title == "2026-11-30 1405"
    assert parse_note("pages/Ask___Trip.md", "- x\n", "logseq").title == "Ask/Trip"
    assert parse_note("journals/2026_11_30.md", "- x\n", "obsidian").title == "2026_11_30"
    assert parse_note("2026-11-30.md", "x\n").title == "2026-11-30"


def test_the_file_name_format_counts_in_the_journals_folder(tmp_path: Path) -> None:
    names = journal_names_from('{:journal/file-name-format "yyyyMMdd"}')
    assert names.page_name("20261130", "journals/20261130.md") == "Nov 30th, 2026"
    assert names.page_name("20261130", "pages/20261130.md") == "20261130"  # a page named so


def test_read_note_follows_config_edn_as_it_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "journals").mkdir()
    (tmp_path / "journals/2026_11_30.md").write_text("- went out\n")
    rel = "journals/2026_11_30.md"
    assert read_note(tmp_path, rel, "logseq").title == "Nov 30th, 2026"
    config = tmp_path / "logseq/config.edn"
    config.parent.mkdir()
    config.write_text('{:journal/page-title-format "yyyy-MM-dd"}\n')
    with caplog.at_level(logging.INFO, logger="commonplace.vault.journals"):
        assert read_note(tmp_path, rel, "logseq").title == "2026-11-30"
        assert page_name(tmp_path, rel, "logseq") == "2026-11-30"
        assert read_note(tmp_path, rel, "obsidian").title == "2026_11_30"
    assert "journal pages are named 'yyyy-MM-dd'" in caplog.text
    assert caplog.text.count("journal pages are named") == 1  # once per change, not per note

    config.write_text('{:journal/page-title-format "HH:mm"}\n')
    os.utime(config, ns=(1, 1))  # a different mtime, whatever the clock's resolution
    with caplog.at_level(logging.WARNING, logger="commonplace.vault.journals"):
        assert read_note(tmp_path, rel, "logseq").title == "Nov 30th, 2026"
    assert ":journal/page-title-format 'HH:mm' cannot be read" in caplog.text
    assert journal_names(tmp_path).problems
