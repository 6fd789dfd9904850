"""The MCP tools through the daemon's real JSON API (its security checks, its index, its
assistant), authenticated with the vault's token as `commonplace mcp` does when a daemon runs."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from commonplace.assistant import build_assistant
from commonplace.assistant.tasks import Task, TaskReader
from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.mcp.daemon_client import DaemonBackend
from commonplace.plugin.apitoken import get_or_create_token, token_path
from commonplace.server import create_app
from commonplace.server.context import Services
from tests.ask.helpers import cite_passage_with
from tests.assistant.conftest import NOW
from tests.fakes.ollama import FakeOllama
from tests.mcp_server.conftest import connected, error_text, structured, vault_hashes


class KeptReader(TaskReader):
    """The daemon's reader of the to-dos, counting the lists asked of it."""

    lists = 0

    def open_tasks_within(self, seconds: float | None = None) -> list[Task]:
        self.lists += 1
        return super().open_tasks_within(seconds)


@contextlib.asynccontextmanager
async def daemon(settings: Settings, tasks: TaskReader | None = None) -> AsyncIterator[str]:
    """The daemon's app with its index, assistant and to-do reader on a loopback port; yields
    its URL."""
    llm = make_llm(settings)
    index = Index.open(settings, llm)
    await index.refresh()
    reader = tasks or TaskReader(settings)
    assistant = build_assistant(settings, llm, clock=lambda: NOW, tasks=reader)
    services = Services(index=index, assistant=assistant, tasks=reader)
    server = TestServer(create_app(settings, llm, services))
    await server.start_server()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        await server.close()
        index.close()


@contextlib.asynccontextmanager
async def through_daemon(
    settings: Settings, token: str, tasks: TaskReader | None = None
) -> AsyncIterator[Any]:
    async with daemon(settings, tasks) as url:
        backend = DaemonBackend(settings, lambda: token, base_url=url)
        try:
            async with connected(settings, backend, client_name="Claude Desktop") as client:
                yield client
        finally:
            await backend.close()


@pytest.fixture
def token(mcp_settings: Settings) -> str:
    return get_or_create_token(token_path(mcp_settings.data_path))[0]


async def test_every_tool_works_through_the_daemon(
    mcp_settings: Settings, token: str, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_handler = cite_passage_with(
        "Expires: 9 February 2027", "Your passport expires on 9 February 2027"
    )
    before = vault_hashes(mcp_settings.vault)
    kept = KeptReader(mcp_settings)
    async with through_daemon(mcp_settings, token, kept) as client:
        found = structured(await client.call_tool("search_notes", {"query": "passport"}))
        people = structured(
            await client.call_tool("search_notes", {"query": "birthday", "folder": "People"})
        )
        answer = structured(
            await client.call_tool("ask_notes", {"question": "When does my passport expire?"})
        )
        note = structured(await client.call_tool("read_note", {"path": "Travel/Passport.md"}))
        tasks = structured(await client.call_tool("list_tasks", {"due_within_days": 7}))
        listed = kept.lists
        saved = structured(await client.call_tool("capture", {"text": "through the daemon"}))
        asked = structured(await client.call_tool("propose_complete_task", {"task": "timber"}))
    assert found["results"][0]["path"] == "Travel/Passport.md"
    assert people["results"] and all(r["path"].startswith("People/") for r in people["results"])
    assert answer["refused"] is False and answer["sources"][0]["path"] == "Travel/Passport.md"
    assert "Expires: 9 February 2027" in note["text"]
    assert tasks["tasks"][0]["text"] == "Order timber for the shed roof"
    assert tasks["today"] == "2026-10-26"  # the client's today, as with no daemon
    assert listed == 1  # the daemon's kept list: the MCP process read no note for it
    assert asked["changed"] is False and asked["question"].startswith('Tick off "Order timber')

    after = vault_hashes(mcp_settings.vault)
    assert {k: after[k] for k in before} == before
    assert set(after) - set(before) == {saved["path"]}
    assert "via: mcp\n" in (mcp_settings.vault / saved["path"]).read_text()
    owner = build_assistant(mcp_settings, make_llm(mcp_settings), clock=lambda: NOW)
    [waiting] = owner.today()[1].pending
    assert (waiting.question, waiting.client) == (asked["question"], "Claude Desktop")


async def test_a_daemon_that_refuses_the_token_gets_nothing_written(
    mcp_settings: Settings, token: str
) -> None:
    before = vault_hashes(mcp_settings.vault)
    async with through_daemon(mcp_settings, "not-" + token) as client:
        search = await client.call_tool("search_notes", {"query": "passport"})
        capture = await client.call_tool("capture", {"text": "lost?"})
        propose = await client.call_tool("propose_remember", {"fact": "x"})
    for result in (search, capture, propose):
        assert "refused this server" in error_text(result)
    assert vault_hashes(mcp_settings.vault) == before
    owner = build_assistant(mcp_settings, make_llm(mcp_settings), clock=lambda: NOW)
    assert owner.today()[1].pending == []


async def test_a_daemon_that_is_not_answering_is_a_sentence_not_a_crash(
    mcp_settings: Settings, dead_ollama_url: str
) -> None:
    """(The dead Ollama URL is just a loopback port nobody answers on.)"""
    backend = DaemonBackend(mcp_settings, lambda: "t", base_url=dead_ollama_url)
    try:
        async with connected(mcp_settings, backend) as client:
            result = await client.call_tool("capture", {"text": "nobody home"})
    finally:
        await backend.close()
    assert "not answering" in error_text(result) and "try again" in error_text(result)


def test_the_daemon_url_comes_from_the_config(mcp_settings: Settings) -> None:
    from commonplace.mcp.daemon_client import daemon_url

    def at(host: str) -> str:
        return daemon_url(
            dataclasses.replace(
                mcp_settings, web=dataclasses.replace(mcp_settings.web, host=host, port=8765)
            )
        )

    assert at("127.0.0.1") == "http://127.0.0.1:8765"
    assert at("0.0.0.0") == "http://127.0.0.1:8765"
    assert at("::1") == "http://[::1]:8765"


async def test_an_older_daemon_without_an_address_says_to_restart_it(
    mcp_settings: Settings,
) -> None:
    """After an upgrade the daemon runs its old version until restarted, and a new
    `commonplace mcp` asked it for GET /api/tasks: list_tasks answered only "Not Found"."""
    from aiohttp import web

    async def older(request: web.Request) -> web.Response:  # the router's 404, as it says it
        return web.json_response(
            {"error": {"code": "not_found", "message": "Not Found"}}, status=404
        )

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", older)
    server = TestServer(app)
    await server.start_server()
    backend = DaemonBackend(mcp_settings, lambda: "t", base_url=f"http://127.0.0.1:{server.port}")
    try:
        async with connected(mcp_settings, backend) as client:
            result = await client.call_tool("list_tasks", {})
    finally:
        await backend.close()
        await server.close()
    said = error_text(result)
    assert "does not know /api/tasks: it is an older version than this MCP server" in said
    assert "Restart the daemon" in said


async def test_the_daemon_is_reached_at_the_port_its_lock_names(
    mcp_settings: Settings, token: str, dead_ollama_url: str
) -> None:
    """A daemon started with another port than this process reads (COMMONPLACE_WEB_PORT in its
    terminal, or the config edited since) was still asked at the configured one: every capture
    and question failed with "not answering; try again in a moment" while it ran (audit10)."""
    from urllib.parse import urlsplit

    from commonplace.mcp.access import VaultAccess
    from commonplace.runtime.lock import VaultLock

    nobody = urlsplit(dead_ollama_url).port or 9  # a loopback port nobody answers on
    settings = dataclasses.replace(
        mcp_settings, web=dataclasses.replace(mcp_settings.web, port=nobody)
    )
    async with daemon(settings) as url:
        lock = VaultLock.acquire(settings.data_path)  # this process stands in for the daemon
        lock.record_port(urlsplit(url).port or 0)
        access = VaultAccess(settings, lambda: token)
        try:
            async with connected(settings, await access.backend()) as client:
                saved = structured(await client.call_tool("capture", {"text": "to the daemon"}))
        finally:
            await access.close()
            lock.release()
    assert saved["path"].startswith("Inbox/")
    assert (settings.vault / saved["path"]).read_text().endswith("to the daemon")
