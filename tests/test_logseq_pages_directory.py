"""A Logseq graph whose logseq/config.edn says `:pages-directory "notes"` keeps its pages there.

Logseq 0.10's file graphs (frontend config.cljs get-pages-directory, default "pages";
modules/file/core.cljs makes a new page's file in it) write every new page into that folder,
relative to the graph's. So the daemon's folders go there (captures, filed notes, Ask notes,
digests), and the Ask namespace pages and the assistant's notes are looked for there; page
names do not depend on it (graph-parser extract.cljc reads any file's name alike). Without the
key, or with one that cannot be read, it is "pages", as before. Real files in tmp_path, the real
index (Tantivy + LanceDB) and the fake Ollama.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from commonplace.ask.service import AskService
from commonplace.assistant.memory import AddMemory, memory_text
from commonplace.assistant.tasks import AddTask
from commonplace.assistant.vaultfiles import note_path
from commonplace.capture.inbox import write_capture
from commonplace.config import Settings
from commonplace.daemon.conflicts import find_conflict_copies
from commonplace.daemon.jobs import route_changes
from commonplace.daemon.run import start_notes
from commonplace.doctor.checks import config_checks
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from commonplace.runtime.daemon_notes import (
    ask_pages,
    ask_root,
    ask_rule,
    daemon_folder_of,
    is_ask_note,
)
from commonplace.tidy.pipeline import TidyContext, tidy_capture
from commonplace.vault import read_note
from commonplace.vault.journals import journal_names_from
from tests.ask.helpers import cite_passage_with, passages_in
from tests.fakes.ollama import FakeOllama
from tests.tidy.conftest import answer, fast

CONFIG = """{:meta/version 1
 ;; Set the default location for storing notes.
 ;; Default value: "pages"
 ;; :pages-directory "pages"
 :pages-directory "notes"
 :file/name-format :triple-lowbar
 :hidden []}
"""
PAGES = {
    "notes/Kites.md": "- The zephyrine kite project: a spar of bamboo.\n",
    "notes/Trips___Kite festival.md": "- The zephyrine kite festival at the lighthouse.\n",
    "journals/2026_11_30.md": "- Flew the zephyrine kite at the lighthouse with Ana.\n",
}


def make_graph(root: Path, config: str | None = CONFIG) -> Path:
    """A small Logseq graph in `root`: its pages in notes/, a journal, and `config`."""
    files = dict(PAGES)
    if config is not None:
        files["logseq/config.edn"] = config
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def on_graph(settings: Settings, fake_ollama: FakeOllama, config: str | None = CONFIG) -> Settings:
    root = make_graph(settings.vault.parent / "graph", config)
    return fast(dataclasses.replace(settings, vault=root, flavor="logseq"), fake_ollama.url)


# -- reading the setting -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pages"),
    [
        (CONFIG, "notes"),
        ('{:pages-directory "/notes/"}', "notes"),  # relative to the graph, whatever the slashes
        ('{:pages-directory "./notes//daily/"}', "notes/daily"),
        ('{:pages-directory "notes\\\\daily"}', "notes/daily"),  # EDN "notes\\daily"
        ('{:pages-directory "old/../notes"}', "notes"),
        ('{:pages-directory, "notes"}', "notes"),  # commas are whitespace in EDN
        ("{:meta/version 1 :hidden []}", "pages"),  # no key: Logseq's default
        ('{:meta/version 1\n ;; :pages-directory "x"\n :hidden []}', "pages"),  # commented out
        ('{:meta/version 1\n ;; :pages-directory "x"\n :pages-directory "y"}', "y"),
        ('{:journals-directory "notes" :pages-directory-old "x"}', "pages"),  # other keys
        ("{:pages-directory notes}", "pages"),  # not a string
        ("{:pages-directory :notes}", "pages"),
        ('{:pages-directory "notes', "pages"),  # malformed: the string never ends
        ('{:pages-directory [[[ "', "pages"),
        ("", "pages"),
        ("\x00\xff garbage ;; {{{", "pages"),
    ],
)
def test_the_pages_directory_is_read_from_config_edn(text: str, pages: str) -> None:
    names = journal_names_from(text)
    assert names.pages == pages
    assert names.problems == ()


@pytest.mark.parametrize("value", ["", "/", ".", "..", "../elsewhere", "notes/../.."])
def test_a_pages_directory_outside_the_graph_is_read_as_pages_and_said(value: str) -> None:
    """Logseq would write those pages at the graph's top level or outside it."""
    names = journal_names_from(f'{{:pages-directory "{value}"}}')
    assert names.pages == "pages"
    [problem] = names.problems
    assert problem.startswith(f"logseq/config.edn: :pages-directory {value!r} names no folder")


def test_the_journals_directory_is_read_by_the_same_rule() -> None:
    assert journal_names_from('{:journals-directory "/days/"}').directory == "days"
    assert journal_names_from('{:journals-directory "./days//2026"}').directory == "days/2026"
    names = journal_names_from('{:journals-directory ".."}')
    assert names.directory == "journals" and len(names.problems) == 1


def test_a_hostile_config_edn_is_read_in_linear_time(tmp_path: Path) -> None:
    """Near 1 MB (the limit) of keys whose value never comes: read in well under a second;
    the bound is a hang's. In a process of its own, as a regular expression holds the
    interpreter until it is done."""
    hostile = ":pages-directory" + "," * 300_000 + ' :pages-directory "' + "\\\\" * 300_000
    make_graph(tmp_path, "{" + hostile)
    code = (
        "import sys; from pathlib import Path; "
        "from commonplace.vault.journals import journal_names; "
        "print(journal_names(Path(sys.argv[1])).pages)"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading a hostile logseq/config.edn did not finish in 30 s")
    assert done.stdout.strip() == "pages", done.stderr


# -- where the daemon's notes go -----------------------------------------------------------------


def test_the_daemons_folders_and_notes_follow_the_pages_directory(settings: Settings) -> None:
    s = dataclasses.replace(
        settings, vault=make_graph(settings.vault.parent / "g"), flavor="logseq"
    )
    assert s.pages_folder() == "notes"
    assert s.daemon_folders() == ("notes/Inbox", "notes/Filed", "notes/Ask", "notes/Digests")
    assert note_path(s, "Tasks.md") == "notes/Tasks.md"
    assert note_path(s, "Lists/Memory") == "Lists/Memory.md"  # a path is taken as given
    given = dataclasses.replace(s, folders=dataclasses.replace(s.folders, inbox="Captures/In"))
    assert given.folder("inbox") == "Captures/In"

    # The same graph read as an Obsidian vault, and one without the key: as before.
    obsidian = dataclasses.replace(s, flavor="obsidian")
    assert obsidian.folder("inbox") == "Inbox" and obsidian.pages_folder() == ""
    assert note_path(obsidian, "Tasks.md") == "Tasks.md"
    plain = dataclasses.replace(s, vault=make_graph(settings.vault.parent / "p", config=None))
    assert plain.folder("inbox") == "pages/Inbox" and note_path(plain, "Tasks") == "pages/Tasks.md"


def test_a_change_to_config_edn_is_followed_without_a_restart(settings: Settings) -> None:
    s = dataclasses.replace(
        settings, vault=make_graph(settings.vault.parent / "g"), flavor="logseq"
    )
    assert s.folder("ask") == "notes/Ask"
    (s.vault / "logseq/config.edn").write_text(CONFIG.replace('"notes"', '"wiki/pages"'))
    assert s.folder("ask") == "wiki/pages/Ask"
    (s.vault / "logseq/config.edn").write_text(CONFIG.replace(' :pages-directory "notes"\n', ""))
    assert s.folder("ask") == "pages/Ask"
    (s.vault / "logseq/config.edn").unlink()
    assert s.folder("ask") == "pages/Ask"


def test_ask_namespace_pages_are_those_in_the_pages_directory(settings: Settings) -> None:
    s = dataclasses.replace(
        settings, vault=make_graph(settings.vault.parent / "g"), flavor="logseq"
    )
    rule = ask_rule(s)
    assert rule == ("notes/Ask", "logseq", "notes")
    assert ask_pages(*rule) == ("notes/ask___", "notes/ask%2f")
    assert ask_root(*rule) == "notes"
    assert is_ask_note("notes/Ask/Trip.md", *rule)
    assert is_ask_note("notes/Ask___Trip.md", *rule) and is_ask_note("notes/ask%2FTrip.md", *rule)
    assert not is_ask_note("pages/Ask___Trip.md", *rule)
    assert not is_ask_note("notes/Askew___Trip.md", *rule)
    assert not is_ask_note("notes/Sub/Ask___Trip.md", *rule)
    assert daemon_folder_of("notes/Ask___Trip.md", s) == "ask"
    assert daemon_folder_of("notes/Inbox/2026-12-01 0900.md", s) == "inbox"
    assert daemon_folder_of("pages/Inbox/2026-12-01 0900.md", s) is None
    # A nested pages directory: the namespace pages are directly in it.
    nested = ("wiki/pages/Ask", "logseq", "wiki/pages")
    assert ask_pages(*nested) == ("wiki/pages/ask___", "wiki/pages/ask%2f")
    assert ask_root(*nested) == "wiki/pages"
    assert ask_pages("notes/Ask", "obsidian", "notes") == ()


def test_changes_are_routed_by_the_pages_directory(settings: Settings) -> None:
    s = dataclasses.replace(
        settings, vault=make_graph(settings.vault.parent / "g"), flavor="logseq"
    )
    changes = [
        Change("notes/Inbox/2026-12-01 0900.md", "created"),
        Change("notes/Ask___Kites.md", "modified"),
        Change("pages/Inbox/2026-12-01 0901.md", "created"),
        Change("notes/Kites.md", "modified"),
    ]
    routed = route_changes(changes, s)
    assert [c.path for c in routed["tidy"]] == ["notes/Inbox/2026-12-01 0900.md"]
    assert [c.path for c in routed["ask"]] == ["notes/Ask___Kites.md"]
    assert len(routed["index"]) == 4


def test_page_names_do_not_depend_on_the_folder(settings: Settings) -> None:
    """Logseq reads `a___b.md` as the page "a/b" wherever the file is (extract.cljc
    get-page-name), so a graph's old pages/ keep their names after `:pages-directory` moves."""
    vault = make_graph(settings.vault.parent / "g")
    (vault / "pages").mkdir()
    (vault / "pages/Trips___Old fair.md").write_text("- an older page\n")
    assert read_note(vault, "notes/Trips___Kite festival.md", "logseq").title == (
        "Trips/Kite festival"
    )
    assert read_note(vault, "pages/Trips___Old fair.md", "logseq").title == "Trips/Old fair"
    assert read_note(vault, "journals/2026_11_30.md", "logseq").title == "Nov 30th, 2026"


def test_conflict_copies_of_ask_pages_are_found_in_the_pages_directory(
    settings: Settings,
) -> None:
    s = dataclasses.replace(
        settings, vault=make_graph(settings.vault.parent / "g"), flavor="logseq"
    )
    copy = "notes/Ask___Kites.sync-conflict-20261201-090000-ABCDEFG.md"
    (s.vault / copy).write_text("- ?? where?\n")
    (s.vault / "notes/Kites.sync-conflict-20261201-090000-ABCDEFG.md").write_text("- own\n")
    assert [e.path for e in find_conflict_copies(s)] == [copy]


def test_doctor_says_where_new_pages_go(settings: Settings, fake_ollama: FakeOllama) -> None:
    s = on_graph(settings, fake_ollama)
    [line] = [c.line() for c in config_checks(s) if c.name == "journals"]
    assert "in journals/; new pages in notes/, page files named by :triple-lowbar" in line
    (s.vault / "logseq/config.edn").write_text('{:pages-directory ".."}')
    lines = [c.line() for c in config_checks(s) if c.name == "journals"]
    assert lines[0].startswith("warn journals: logseq/config.edn: :pages-directory '..' names")
    assert "new pages in pages/" in lines[1]


# -- the stages, end to end ----------------------------------------------------------------------


async def test_a_capture_is_saved_and_filed_in_the_pages_directory(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    """The phone's capture lands in notes/Inbox/, tidy files it in notes/Filed/ with links to
    pages by the names Logseq shows (a namespaced file in notes/ too), and no pages/ appears."""
    s = on_graph(settings, fake_ollama)
    # The capture names both pages: a page it does not name, which the search ranks far, is
    # not linked on the model's word alone (tidy/evidence.py).
    rel = write_capture(
        s, "kites for the zephyrine kite festival again", "phone", datetime(2026, 12, 1, 9, 0)
    )
    assert rel == "notes/Inbox/2026-12-01 0900.md"
    fake_ollama.enqueue_chat(answer("Kite festival", links=["Kites", "Trips/Kite festival"]))
    llm = make_llm(s)
    index = Index.open(s, llm)
    try:
        await index.refresh()
        outcome = await tidy_capture(TidyContext(s, llm, index), rel)
        # Search's folder filter takes the pages directory like any other folder.
        found = await index.search(
            "zephyrine kite", limit=10, mode="keyword", include_folders=["notes"]
        )
        assert found.results and all(r.path.startswith("notes/") for r in found.results)
    finally:
        index.close()
    [request] = fake_ollama.chat_requests()
    offered = json.dumps(request, ensure_ascii=False)
    assert "Trips/Kite festival" in offered and "Trips___Kite festival" not in offered
    assert outcome.filed == "notes/Filed/2026-12-01 0900 Kite festival.md"
    filed = (s.vault / outcome.filed).read_text(encoding="utf-8")
    assert "Related: [[Kites]], [[Trips/Kite festival]]" in filed
    assert not (s.vault / rel).exists()
    assert not (s.vault / "pages").exists()


async def test_a_question_on_an_ask_page_in_the_pages_directory_is_answered(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    """Logseq saves the page "Ask/Kites" as notes/Ask___Kites.md: found by the start-up scan,
    answered from the owner's pages, and never one of its own passages."""
    s = on_graph(settings, fake_ollama)
    page = s.vault / "notes/Ask___Kites.md"
    page.write_text("- ?? Where did I fly the zephyrine kite?\n", encoding="utf-8")
    fake_ollama.chat_handler = cite_passage_with("lighthouse", "At the lighthouse")
    llm = make_llm(s)
    index = Index.open(s, llm)
    svc = AskService(s, llm, index, quiet_s=0.05, retry_s=0.05)
    try:
        await index.refresh()
        await svc.startup()
        await svc.idle()
    finally:
        await svc.close()
        index.close()
    text = page.read_text(encoding="utf-8")
    assert re.search(r"At the lighthouse \[\d\]\.", text), text
    [request] = fake_ollama.chat_requests()
    cited = {path for _, path, _, _ in passages_in(request)}
    assert cited and not any("Ask" in name for name in cited)


# -- a pages directory set after the daemon made its folders in pages/ ---------------------------

EARLIER = {  # what the daemon made while the graph's pages were in pages/
    "pages/Tasks.md": "- LATER Fix the kite's spar\n",
    "pages/Memory.md": "- Ana flies kites at the lighthouse.\n",
    "pages/Inbox/2026-11-29 0800.md": "captured:: 2026-11-29T08:00\n\n- a capture never filed\n",
    "pages/Filed/2026-11-28 0900 Kite spar.md": "capture-id:: abc\n\n- bamboo\n",
    "pages/Ask___Kites.md": "- ?? Where did I fly the kite?\n",
}


def graph_moved(
    settings: Settings, earlier: dict[str, str] = EARLIER, name: str = "moved"
) -> Settings:
    """A graph (in a folder `name`) whose logseq/config.edn now says `:pages-directory
    "notes"`, with the daemon's files from before still in pages/."""
    s = dataclasses.replace(
        settings, vault=make_graph(settings.vault.parent / name), flavor="logseq"
    )
    for rel, text in earlier.items():
        (s.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (s.vault / rel).write_text(text, encoding="utf-8")
    return s


def files_of(vault: Path) -> dict[str, str]:
    return {
        p.relative_to(vault).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(vault.rglob("*"))
        if p.is_file()
    }


async def test_the_assistant_goes_on_with_its_tasks_and_memory_notes_where_they_are(
    settings: Settings,
) -> None:
    """Logseq moves no page when :pages-directory changes, and goes on saving the page
    "Memory" in pages/Memory.md: the assistant did start an empty notes/Memory.md, and so
    forgot all it had been told."""
    s = graph_moved(settings)
    assert note_path(s, "Tasks.md") == "pages/Tasks.md"
    assert note_path(s, "Memory.md") == "pages/Memory.md"
    assert "Ana flies kites" in memory_text(s.vault, note_path(s, "Memory.md"))
    now = datetime(2026, 12, 1, 9, 0, tzinfo=s.tz)
    add = AddMemory(s)
    seen = await add.describe({"text": "The festival is in June"}, now)
    await add.run({"text": "The festival is in June"}, seen, now)
    assert (s.vault / "pages/Memory.md").read_text(encoding="utf-8") == (
        "- Ana flies kites at the lighthouse.\n- The festival is in June\n"
    )
    task = AddTask(s)
    seen = await task.describe({"text": "Buy bamboo"}, now)
    assert seen.question == 'Add the task "Buy bamboo" to pages/Tasks.md?'
    await task.run({"text": "Buy bamboo"}, seen, now)
    assert "Buy bamboo" in (s.vault / "pages/Tasks.md").read_text(encoding="utf-8")
    assert not (s.vault / "notes/Tasks.md").exists()
    assert not (s.vault / "notes/Memory.md").exists()
    # A graph that never had them makes them in the pages directory, as before.
    fresh = graph_moved(settings, earlier={}, name="fresh")
    assert note_path(fresh, "Memory.md") == "notes/Memory.md"


def test_doctor_and_the_start_up_notes_say_where_the_earlier_folders_are(
    settings: Settings,
) -> None:
    s = graph_moved(settings)
    before = files_of(s.vault)
    lines = [c.line() for c in config_checks(s) if c.name == "pages directory"]
    assert lines[0] == (
        "warn pages directory: logseq/config.edn says :pages-directory 'notes', but "
        "Commonplace's folders from before are still in pages/: pages/Inbox/ (1 note), "
        "pages/Filed/ (1 note), 1 Ask page (pages/Ask___...). New captures, filed notes, Ask "
        "pages and digests go under notes/, and captures and questions left in pages/ are no "
        "longer filed or answered. Nothing was moved: to go on with them, close Logseq and "
        "move them to the same places under notes/ (the files in pages/Inbox/ into "
        'notes/Inbox/, and so on), or set :pages-directory back to "pages".'
    )
    assert lines[1].startswith(
        "ok   pages directory: the assistant's tasks note is pages/Tasks.md, made before "
        ":pages-directory became 'notes'; it is used there"
    )
    assert lines[2].startswith("ok   pages directory: the assistant's memory note is pages/Memory")
    assert lines[0][5:].split(": ", 1)[1] in start_notes(s)  # the log and /api/state say it too
    assert files_of(s.vault) == before  # a check moves nothing

    # Once the owner has moved them, nothing is said; with :pages-directory back, neither.
    for rel in EARLIER:
        moved = s.vault / rel.replace("pages/", "notes/", 1)
        moved.parent.mkdir(parents=True, exist_ok=True)
        (s.vault / rel).rename(moved)
    assert [c for c in config_checks(s) if c.name == "pages directory"] == []
    assert note_path(s, "Memory.md") == "notes/Memory.md"
    back = graph_moved(settings, name="back")
    (back.vault / "logseq/config.edn").write_text(CONFIG.replace(' :pages-directory "notes"\n', ""))
    assert [c for c in config_checks(back) if c.name == "pages directory"] == []
    assert not any("pages/" in note for note in start_notes(back))


def test_two_tasks_notes_doctor_says_which_one_is_used_and_what_to_do(
    settings: Settings,
) -> None:
    """Both files are the page "Tasks" to Logseq; the one in the pages directory is used."""
    s = graph_moved(settings, earlier={"pages/Tasks.md": "- LATER old\n"})
    (s.vault / "notes/Tasks.md").write_text("- LATER new\n", encoding="utf-8")
    assert note_path(s, "Tasks.md") == "notes/Tasks.md"
    [line] = [c.line() for c in config_checks(s) if c.name == "pages directory"]
    assert line == (
        "warn pages directory: pages/Tasks.md is no longer the assistant's tasks note: it uses "
        "notes/Tasks.md, in the pages directory notes/ (both files are the page 'Tasks' to "
        "Logseq); copy what you want to keep from pages/Tasks.md into notes/Tasks.md, then "
        "delete pages/Tasks.md"
    )


def test_a_link_left_in_pages_is_not_called_a_second_tasks_note(settings: Settings) -> None:
    """The daemon never reads a link (vault/files.py), so a `pages/Tasks.md` that is one is no
    earlier copy of the page to merge by hand; doctor used to follow it and say it was."""
    s = graph_moved(settings, earlier={})
    (s.vault / "notes").mkdir(exist_ok=True)
    (s.vault / "notes/Tasks.md").write_text("- LATER new\n", encoding="utf-8")
    (s.vault / "pages").mkdir(exist_ok=True)
    (s.vault / "pages/Tasks.md").symlink_to(s.vault / "notes/Tasks.md")
    assert note_path(s, "Tasks.md") == "notes/Tasks.md"
    assert [c for c in config_checks(s) if "no longer the assistant" in c.message] == []
