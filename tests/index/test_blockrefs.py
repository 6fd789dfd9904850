"""Logseq block refs shown as their block's text: the pure rules, then the real index (LanceDB,
Tantivy, the manifest) over a small Logseq graph in tmp_path, through search, the CLI and Ask.

The index keeps the refs as written (embedded and keyword-indexed text); only what is shown or
given to the model has the block's text in their place (vault/blockrefs.py).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from commonplace.ask import answer_question
from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.index import Index
from commonplace.index.highlight import query_terms, result_json
from commonplace.index.store import MANIFEST
from commonplace.llm import make_llm
from commonplace.vault.blockrefs import NOT_SHOWN, note_blocks, shown_refs
from tests.ask.helpers import cite_passage_with, passages_in
from tests.fakes.ollama import FakeOllama
from tests.index.conftest import OpenIndex, write

KEY = "61024cd6-1951-47cc-8050-25f68960d729"
TASK = "6502e1a4-0d3c-4f6e-9a0b-1c2d3e4f5a6b"
GONE = "63b70dc8-1d59-4348-9737-e62b17fdabca"
LOOP = "64a3f1c2-9b1e-4c2d-8e5f-1a2b3c4d5e6f"

KEYS_PAGE = (
    "title:: API keys\n"
    "- Create a new API key on the Zotero settings page, and note down your userID\n"
    f"  id:: {KEY}\n"
    "  collapsed:: true\n"
    "\t- a child block, not part of the ref\n"
    "- TODO [#A] Renew the library licence\n"
    f"  id:: {TASK.upper()}\n"
)
ZOTERO_PAGE = (
    f"- Goto [[Settings]], then fill in your API key and User ID mentioned in (({KEY}))\n"
    f"- The sync [how-to]((({KEY}))) has a label\n"
    f"- Embedded here:\n\t- {{{{embed (({TASK}))}}}}\n"
    f"- A block that was deleted: (({GONE}))\n"
    "- Code keeps its refs: `((123e4567-e89b-12d3-a456-426614174000))`\n"
)


# -- the rules --------------------------------------------------------------------------------


def test_a_block_is_its_first_shown_line() -> None:
    blocks = note_blocks(
        "title:: Page\n"
        f"id:: {LOOP}\n"  # the page's own id: no block
        "## Beta 0.10.15 [[Dec 1st, 2025]]\n"  # a first block without a bullet
        f"id:: {KEY}\n"
        f"\t- id:: {GONE}\n"  # the id on the bullet's line, the words after it
        "\t  3. Blocks in 7ds with a page reference\n"
        "- DONE " + "word " * 40 + "\n"
        f"  id:: {TASK}\n"
        "```\n"
        f"id:: {'0' * 8}-0000-0000-0000-{'0' * 12}\n"  # in code: not a property
        "```\n"
    )
    assert blocks[KEY] == "Beta 0.10.15 [[Dec 1st, 2025]]"
    assert blocks[GONE] == "3. Blocks in 7ds with a page reference"
    assert blocks[TASK].startswith("word word") and blocks[TASK].endswith("…")
    assert len(blocks[TASK]) <= 121 and "DONE" not in blocks[TASK]
    assert set(blocks) == {KEY, GONE, TASK}


def test_refs_are_shown_one_level_deep_and_unknown_ones_as_left_out() -> None:
    blocks = {KEY: f"see (({LOOP}))", LOOP: f"back to (({KEY}))"}
    text = f"A (({KEY})), B {{{{embed (({LOOP}))}}}}, C (({GONE})), D [label]((({KEY})))"
    assert shown_refs(text, blocks) == f"A see {NOT_SHOWN}, B back to {NOT_SHOWN}, C […], D label"
    assert shown_refs(f"`(({KEY}))`", blocks) == f"`(({KEY}))`"
    assert shown_refs("no refs (here)", blocks) == "no refs (here)"


# -- the real index ---------------------------------------------------------------------------


@pytest.fixture
def graph(isettings: Settings, tmp_path: Path) -> Settings:
    """A small Logseq graph of its own (not the sample vault)."""
    vault = tmp_path / "graph"
    write(vault, "pages/API keys.md", KEYS_PAGE)
    write(vault, "pages/Zotero.md", ZOTERO_PAGE)
    write(vault, "pages/Other.md", "- Nothing refers to this page\n")
    return dataclasses.replace(isettings, vault=vault, flavor="logseq")


async def zotero_text(index: Index, query: str = "User ID mentioned") -> str:
    resp = await index.search(query, limit=3, mode="keyword", group_by_note=True)
    (hit,) = [h for h in resp.results if h.path == "pages/Zotero.md"]
    return hit.text


async def test_search_shows_the_block_text_and_follows_edits_and_deletes(
    open_index: OpenIndex, graph: Settings, fake_ollama: FakeOllama
) -> None:
    index = open_index(graph)
    await index.refresh()
    text = await zotero_text(index)
    key = "Create a new API key on the Zotero settings page, and note down your userID"
    assert f"mentioned in {key}" in text
    assert "The sync how-to has a label" in text
    assert "Renew the library licence" in text and "TODO" not in text  # the embed
    assert f"was deleted: {NOT_SHOWN}" in text
    assert "`((123e4567-e89b-12d3-a456-426614174000))`" in text
    assert KEY not in text and TASK not in text and GONE not in text

    # What is indexed keeps the refs: the embedding model saw the uuid, the keyword index
    # finds the licence words only on the page that holds them.
    sent = [t for body in fake_ollama.embed_requests() for t in body["input"]]
    assert any(f"(({KEY}))" in t for t in sent)
    assert not any("User ID mentioned" in t and "Create a new" in t for t in sent)
    found = await index.search("library licence", limit=5, mode="keyword")
    assert {h.path for h in found.results} == {"pages/API keys.md"}

    # The snippet the API and the CLI show comes from the same text.
    (first,) = (await index.search("User ID", limit=1, mode="keyword")).results
    snippet = result_json(first, query_terms("User ID"))["snippet"]
    assert "Zotero settings page" in snippet and KEY not in snippet

    # An edit to the referenced block is shown at the next search, without reading the vault
    # at search time (the watcher's path: mark, then search applies it).
    write(graph.vault, "pages/API keys.md", KEYS_PAGE.replace("Create a new", "Make a fresh"))
    index.mark_dirty(["pages/API keys.md"])
    assert "mentioned in Make a fresh API key" in await zotero_text(index)

    # The page deleted: its blocks are gone, the refs read as left out.
    (graph.vault / "pages/API keys.md").unlink()
    index.mark_dirty(["pages/API keys.md"])
    text = await zotero_text(index)
    assert f"mentioned in {NOT_SHOWN}" in text and "Renew" not in text and KEY not in text
    db = sqlite3.connect(graph.data_path / "index" / MANIFEST)
    assert db.execute("SELECT count(*) FROM blocks").fetchone() == (0,)
    db.close()


async def test_an_older_index_gets_the_blocks_once_without_reindexing(
    open_index: OpenIndex, graph: Settings
) -> None:
    """An index made before blocks were kept: the next reconciliation reads the pages for
    their blocks only (nothing chunked, embedded or indexed again), and only once."""
    index = open_index(graph)
    await index.refresh()
    index.close()
    db = sqlite3.connect(graph.data_path / "index" / MANIFEST)
    with db:
        db.execute("DELETE FROM blocks")
        db.execute("DELETE FROM meta WHERE key = 'blocks'")
    db.close()

    reopened = open_index(graph)
    assert f"mentioned in {NOT_SHOWN}" in await zotero_text(reopened)  # nothing read yet
    stats = await reopened.refresh()
    assert stats.indexed == 0 and stats.embedded == 0
    assert "mentioned in Create a new API key" in await zotero_text(reopened)

    # An Obsidian reading of the same folder shows refs as Obsidian does (as written), and
    # drops the blocks, so a later Logseq reading fills them afresh.
    reopened.close()
    plain = open_index(dataclasses.replace(graph, flavor="obsidian"))
    await plain.refresh()
    assert f"mentioned in (({KEY}))" in await zotero_text(plain)
    plain.close()
    again = open_index(graph)
    await again.refresh()
    assert "mentioned in Create a new API key" in await zotero_text(again)


def test_cli_search_prints_the_block_text(graph: Settings, fake_ollama_thread: FakeOllama) -> None:
    env = {
        "COMMONPLACE_VAULT": str(graph.vault),
        "COMMONPLACE_DATA": str(graph.data_dir),
        "COMMONPLACE_FLAVOR": "logseq",
        "OLLAMA_HOST": fake_ollama_thread.url,
    }
    runner = CliRunner()
    assert runner.invoke(cli, ["index"], env=env).exit_code == 0
    result = runner.invoke(cli, ["search", "User", "ID", "mentioned", "--json"], env=env)
    assert result.exit_code == 0, result.output
    (row,) = [r for r in json.loads(result.output) if r["path"] == "pages/Zotero.md"]
    assert "mentioned in Create a new API key on the Zotero settings page" in row["snippet"]
    assert KEY not in row["snippet"] and KEY not in row["text"]
    printed = runner.invoke(cli, ["search", "User", "ID", "mentioned"], env=env)
    assert "Create a new API key" in printed.output and KEY not in printed.output


async def test_ask_gives_the_model_and_the_sources_the_block_text(
    open_index: OpenIndex, graph: Settings, fake_ollama: FakeOllama
) -> None:
    index = open_index(graph)
    await index.refresh()
    fake_ollama.chat_handler = cite_passage_with("userID", "Note down your userID")
    answer = await answer_question(
        "Where do I find my Zotero User ID?", index=index, llm=make_llm(graph), settings=graph
    )
    (request,) = fake_ollama.chat_requests()
    texts = [text for _, _, _, text in passages_in(request)]
    zotero = [t for t in texts if "User ID mentioned in" in t]
    assert zotero and all(KEY not in t for t in texts)
    assert "mentioned in Create a new API key on the Zotero settings page" in zotero[0]
    assert answer.sources and all(KEY not in s.text for s in answer.sources)
    assert any("note down your userID" in s.text for s in answer.sources)
