"""/api/search and /api/related in a Logseq graph: a block ref reads as its block's text.

The real index over a small graph in tmp_path (the pages of tests/index/test_blockrefs.py),
the fake Ollama, aiohttp's test client; the MCP server's search tool, through its local way in,
gets the same text.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.mcp.local import LocalBackend
from commonplace.server.context import Services
from tests.fakes.ollama import FakeOllama
from tests.index.conftest import write
from tests.index.test_blockrefs import KEY, KEYS_PAGE, ZOTERO_PAGE
from tests.mcp_server.conftest import connected, structured
from tests.server.conftest import ClientFactory

SHOWN = "mentioned in Create a new API key on the Zotero settings page"


def graph_settings(settings: Settings, tmp_path: Path, url: str) -> Settings:
    vault = tmp_path / "graph"
    write(vault, "pages/API keys.md", KEYS_PAGE)
    write(vault, "pages/Zotero.md", ZOTERO_PAGE)
    return dataclasses.replace(
        settings,
        vault=vault,
        flavor="logseq",
        ollama=dataclasses.replace(settings.ollama, host=url),
    )


async def test_api_search_snippet_shows_the_block_text(
    make_client: ClientFactory, web_settings: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    settings = graph_settings(web_settings, tmp_path, fake_ollama.url)
    index = Index.open(settings, make_llm(settings))
    try:
        await index.refresh()
        client = await make_client(settings, Services(index=index))
        params = {"q": "User ID mentioned", "limit": "5"}
        body = await (await client.get("/api/search", params=params)).json()
        related = await client.get("/api/related", params={"path": "pages/API keys.md"})
        near = await related.json()
    finally:
        index.close()
    (other,) = [r for r in near["results"] if r["path"] == "pages/Zotero.md"]
    assert SHOWN in other["text"] and KEY not in other["text"]  # the related view shows it
    (hit,) = [r for r in body["results"] if r["path"] == "pages/Zotero.md"]
    assert SHOWN in hit["snippet"] and SHOWN in hit["text"]
    assert KEY not in hit["snippet"] and KEY not in hit["text"]
    marked = [hit["snippet"][a:b] for a, b in hit["marks"]]
    assert "mentioned" in marked  # the marks index the snippet as shown


async def test_mcp_search_snippet_shows_the_block_text(
    settings: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    graph = graph_settings(settings, tmp_path, fake_ollama.url)
    index = Index.open(graph, make_llm(graph))
    try:
        await index.refresh()
    finally:
        index.close()
    backend = LocalBackend(graph)
    try:
        async with connected(graph, backend) as client:
            found = structured(
                await client.call_tool("search_notes", {"query": "User ID mentioned"})
            )
    finally:
        await backend.close()
    (hit,) = [r for r in found["results"] if r["path"] == "pages/Zotero.md"]
    assert SHOWN in hit["snippet"] and KEY not in hit["snippet"]


async def test_the_whole_note_on_the_phone_reads_as_logseq_shows_it(
    make_client: ClientFactory, web_settings: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """The phone page's "whole note" under a cited source (/api/note) showed the docs graph's
    tutorial with `((60293d41-...))` where Logseq shows the block, and the `id::` and
    `collapsed::` lines Logseq never shows, which the snippet above it had left out."""
    settings = graph_settings(web_settings, tmp_path, fake_ollama.url)
    index = Index.open(settings, make_llm(settings))
    try:
        await index.refresh()
        client = await make_client(settings, Services(index=index))
        zotero = await (await client.get("/api/note", params={"path": "pages/Zotero.md"})).json()
        keys = await (await client.get("/api/note", params={"path": "pages/API keys.md"})).json()
    finally:
        index.close()
    assert SHOWN in zotero["text"] and KEY not in zotero["text"]
    assert "((123e4567-e89b-12d3-a456-426614174000))" in zotero["text"]  # code as written
    assert keys["title"] == "API keys"
    assert "id::" not in keys["text"] and "collapsed::" not in keys["text"]
    assert "\t- a child block, not part of the ref\n" in keys["text"]
    assert (settings.vault / "pages/Zotero.md").read_text(encoding="utf-8") == ZOTERO_PAGE
