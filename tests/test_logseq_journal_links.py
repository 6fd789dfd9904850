"""Every link the daemon writes to a Logseq journal page names the page Logseq shows.

journals/2026_11_30.md is the page "Nov 30th, 2026" (or whatever `:journal/page-title-format`
in logseq/config.edn says); a link `[[2026_11_30]]` would open a new, empty page. Real graph
files, the real index (Tantivy + LanceDB) and the fake Ollama.
"""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import date, datetime
from pathlib import Path

import pytest

from commonplace.ask.service import AskService
from commonplace.assistant.task_list import task_list
from commonplace.assistant.tasks import CompleteTask, TaskReader, describe_for_model
from commonplace.config import Settings
from commonplace.digest import Week, collect
from commonplace.digest.render import render_digest
from commonplace.digest.summary import Summary
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from commonplace.tidy.pipeline import TidyContext, tidy_capture
from tests.ask.helpers import cite_passage_with, passages_in
from tests.fakes.ollama import FakeOllama
from tests.tidy.conftest import answer, fast, put_capture

JOURNAL = "journals/2026_11_30.md"
JOURNAL_TEXT = (
    "- Flew the zephyrine kite at the lighthouse with Ana.\n"
    "- TODO Mend the zephyrine kite's spar\n  DEADLINE: <2026-12-03 Thu>\n"
)
CONFIG = """{:meta/version 1
 ;; :journal/page-title-format "MMM do, yyyy"
 :journal/page-title-format "%s"
 :hidden []}
"""


def graph(settings: Settings, fake_ollama: FakeOllama, title_format: str | None) -> Settings:
    """A Logseq graph with one journal day, an ordinary page and, if given, its title format."""
    root = settings.vault.parent / "graph"
    files = {
        JOURNAL: JOURNAL_TEXT,
        "pages/Kites.md": "- The zephyrine kite project: a spar of bamboo.\n",
    }
    if title_format is not None:
        files["logseq/config.edn"] = CONFIG % title_format
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return fast(dataclasses.replace(settings, vault=root, flavor="logseq"), fake_ollama.url)


TITLES = [(None, "Nov 30th, 2026"), ("EEEE, dd.MM.yyyy", "Monday, 30.11.2026")]


@pytest.mark.parametrize(("title_format", "title"), TITLES)
async def test_an_ask_answer_cites_the_journal_page_by_its_logseq_name(
    settings: Settings, fake_ollama: FakeOllama, title_format: str | None, title: str
) -> None:
    s = graph(settings, fake_ollama, title_format)
    note = s.vault / "pages/Ask/Kites.md"
    note.parent.mkdir(parents=True)
    note.write_text("- ?? Where did I fly the zephyrine kite?\n", encoding="utf-8")
    fake_ollama.chat_handler = cite_passage_with("lighthouse", "At the lighthouse")
    llm = make_llm(s)
    index = Index.open(s, llm)
    svc = AskService(s, llm, index, quiet_s=0.05, retry_s=0.05)
    try:
        await index.refresh()
        await svc.on_changes([Change("pages/Ask/Kites.md", "modified")])
        await svc.idle()
    finally:
        await svc.close()
        index.close()
    text = note.read_text(encoding="utf-8")
    [n] = re.findall(r"At the lighthouse \[(\d)\]\.", text)
    assert f"- [{n}] [[{title}]]" in text
    assert "[[2026_11_30]]" not in text
    # The model reads the passage under the page's name and dated by its day, not its mtime.
    [request] = fake_ollama.chat_requests()
    assert (title, "Monday 30 November 2026") in {
        (note, day) for _, note, day, _ in passages_in(request)
    }


async def test_tidy_offers_and_links_the_journal_page_by_its_logseq_name(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    s = graph(settings, fake_ollama, "EEEE, dd.MM.yyyy")
    rel = put_capture(s, "2026-12-01 0900.md", "the zephyrine kite at the lighthouse again")
    fake_ollama.enqueue_chat(answer("Kite again", links=["Monday, 30.11.2026", "Kites"]))
    llm = make_llm(s)
    index = Index.open(s, llm)
    try:
        await index.refresh()
        outcome = await tidy_capture(TidyContext(s, llm, index), rel)
    finally:
        index.close()
    [request] = fake_ollama.chat_requests()
    offered = json.dumps(request, ensure_ascii=False)
    assert "Monday, 30.11.2026" in offered and "2026_11_30" not in offered
    assert outcome.filed is not None
    filed = (s.vault / outcome.filed).read_text(encoding="utf-8")
    assert "Related: [[Monday, 30.11.2026]], [[Kites]]" in filed


async def test_search_finds_a_journal_by_its_name_and_follows_a_new_title_format(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    s = graph(settings, fake_ollama, "EEEE, dd.MM.yyyy")
    index = Index.open(dataclasses.replace(s, flavor="obsidian"), make_llm(s))
    try:
        await index.refresh()  # an index made before journal names were followed
    finally:
        index.close()

    index = Index.open(s, make_llm(s))
    try:
        stats = await index.refresh()
        assert stats.indexed == 1  # the journal is read again; the other page is not
        found = await index.search("Monday 30.11.2026", limit=5, mode="keyword")
        assert [(r.path, r.title) for r in found.results][:1] == [(JOURNAL, "Monday, 30.11.2026")]

        # The owner picks another format in Logseq's settings: the next scan renames.
        config = s.vault / "logseq/config.edn"
        config.write_text(CONFIG % "yyyy-MM-dd", encoding="utf-8")
        stats = await index.refresh()
        assert stats.indexed == 1
        found = await index.search("zephyrine kite lighthouse", limit=5, mode="keyword")
        assert {r.path: r.title for r in found.results}[JOURNAL] == "2026-11-30"
        assert (await index.refresh()).indexed == 0  # once, not at every scan

        # Days filed as journals/20261201.md are journal pages once the file format says so.
        (s.vault / "journals/20261201.md").write_text("- the zephyrine kite again\n")
        await index.refresh()
        with_files = ':hidden [] :journal/file-name-format "yyyyMMdd"'
        config.write_text((CONFIG % "yyyy-MM-dd").replace(":hidden []", with_files))
        assert (await index.refresh()).indexed == 1
        found = await index.search("zephyrine kite", limit=5, mode="keyword")
        titles = {r.path: r.title for r in found.results}
        assert titles["journals/20261201.md"] == "2026-12-01"
        assert titles[JOURNAL] == "2026-11-30"
    finally:
        index.close()


async def test_a_page_made_a_day_by_its_title_property_follows_a_new_title_format(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    """`title:: 2026-11-30` makes pages/Trip.md the journal of that day, named by the title
    format. Another format in config.edn renamed journals/ files at the next scan, but this
    page kept its old name in search, Ask and tidy until it was edited."""
    s = graph(settings, fake_ollama, "EEEE, dd.MM.yyyy")
    trip = "pages/Trip.md"
    (s.vault / trip).write_text("title:: 2026-11-30\n\n- the quillwort ferry crossing\n")
    index = Index.open(s, make_llm(s))
    try:
        await index.refresh()
        found = await index.search("quillwort ferry", limit=5, mode="keyword")
        assert {r.path: r.title for r in found.results}[trip] == "Monday, 30.11.2026"

        (s.vault / "logseq/config.edn").write_text(CONFIG % "yyyy/MM/dd", encoding="utf-8")
        assert (await index.refresh()).indexed == 2  # the journal and the page, no other
        found = await index.search("quillwort ferry", limit=5, mode="keyword")
        assert {r.path: r.title for r in found.results}[trip] == "2026/11/30"
        assert (await index.refresh()).indexed == 0
    finally:
        index.close()


async def test_tasks_and_the_digest_name_the_journal_as_logseq_does(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    s = graph(settings, fake_ollama, "EEEE, dd.MM.yyyy")
    [task] = [t for t in TaskReader(s).open_tasks() if t.path == JOURNAL]
    today = date(2026, 12, 1)
    assert 'in the note "Monday, 30.11.2026"' in describe_for_model(task, today)
    seen = await CompleteTask(s).describe(
        {"path": JOURNAL, "line": task.line}, datetime(2026, 12, 1, 9, 0)
    )
    assert seen.question.endswith(' in the note "Monday, 30.11.2026"?')
    listed = task_list(TaskReader(s).open_tasks(), today, None)["tasks"]
    [item] = [t for t in listed if t["path"] == JOURNAL]
    assert item["note"] == "Monday, 30.11.2026"  # MCP list_tasks and GET /api/tasks

    data = collect(s, Week(2026, 49))
    todos = data.todos
    every = (*todos.overdue, *todos.next_seven_days, *todos.later, *todos.undated)
    [todo] = [t for t in every if t.source == JOURNAL]
    assert todo.link == "Monday, 30.11.2026"
    text = render_digest(data, Summary("Short."), "logseq", datetime(2026, 12, 6, 18, 0))
    assert "Mend the zephyrine kite's spar · [[Monday, 30.11.2026]]" in text


def test_obsidian_and_plain_vaults_keep_file_names(settings: Settings, tmp_path: Path) -> None:
    from commonplace.vault import read_note

    (settings.vault / "journals").mkdir()
    (settings.vault / JOURNAL).write_text(JOURNAL_TEXT, encoding="utf-8")
    assert read_note(settings.vault, JOURNAL, "obsidian").title == "2026_11_30"


def test_doctor_says_how_journal_pages_are_named(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    from commonplace.doctor.checks import config_checks

    s = graph(settings, fake_ollama, "HH:mm")
    lines = [c.line() for c in config_checks(s) if c.name == "journals"]
    assert lines[0].startswith("warn journals: logseq/config.edn: :journal/page-title-format")
    assert lines[1].startswith("ok   journals: pages named 'MMM do, yyyy' (today: '")
    # The graph's config.edn has no :file/name-format: Logseq reads its file names as :legacy.
    assert lines[1].endswith("page files named by :legacy (a.b.md is the page a/b)")
    obsidian = dataclasses.replace(s, flavor="obsidian")
    assert not [c for c in config_checks(obsidian) if c.name == "journals"]
