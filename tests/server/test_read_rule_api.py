"""The read rule (tests/test_read_rule.py) through the API: `/api/note` never reads a link or a
FIFO (and never blocks on one), and `/api/state` lists in `attention` what was skipped, and why."""

from __future__ import annotations

import asyncio
from pathlib import Path

from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.runtime.attention import Attention
from commonplace.server.context import Services
from commonplace.tidy.service import TidyService
from tests.fakes.ollama import FakeOllama
from tests.server.conftest import ClientFactory, local_host
from tests.test_read_rule import MARK, WAIT_S, fifo_cleanup, plant, secret
from tests.tidy.conftest import fast

__all__ = ["fifo_cleanup", "secret"]  # fixtures shared with tests/test_read_rule.py


async def test_api_note_refuses_links_and_fifos_without_blocking(
    make_client: ClientFactory, web_settings: Settings, secret: Path, fifo_cleanup: list[Path]
) -> None:
    planted = plant(web_settings, secret, "People", fifo_cleanup)
    client = await make_client()
    for rel in planted[1:]:  # a link that stays inside the vault, and a FIFO
        async with asyncio.timeout(WAIT_S):
            response = await client.get("/api/note", params={"path": rel})
        assert response.status == 422, rel
        body = await response.json()
        assert body["error"]["code"] == "note_unavailable"
    response = await client.get("/api/note", params={"path": planted[0]})
    assert response.status == 400 and MARK not in await response.text()


async def test_api_state_shows_what_was_skipped(
    make_client: ClientFactory,
    web_settings: Settings,
    fake_ollama: FakeOllama,
    secret: Path,
    fifo_cleanup: list[Path],
) -> None:
    s = fast(web_settings, fake_ollama.url)
    planted = plant(s, secret, "Inbox", fifo_cleanup)
    attention = Attention()
    tidy = TidyService(s, make_llm(s), attention=attention)
    try:
        await tidy.startup()
        async with asyncio.timeout(WAIT_S):
            await tidy.wait_idle()
        client = await make_client(s, Services(stages={"tidy": tidy}, attention=attention))
        response = await client.get("/api/state", headers={"Host": local_host(client)})
        state = await response.json()
    finally:
        await tidy.close()
    shown = {e["path"]: e for e in state["attention"] if e["source"] == "tidy"}
    assert set(shown) == set(planted)
    assert all(e["reason"] and e["action"] and e["code"] == "not_a_file" for e in shown.values())
    assert state["captures_waiting"] == 0  # a link or a FIFO is not a capture
