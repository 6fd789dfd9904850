"""POST /api/assistant/propose: an outside client's change becomes the owner's question, and the
API pieces the MCP server uses (captures via mcp, search in one folder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from commonplace.assistant import build_assistant
from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.plugin.apitoken import get_or_create_token, token_path
from commonplace.server.context import SETTINGS, Services
from tests.assistant.conftest import MEMORY, NOW, TASKS, write
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.server.conftest import ClientFactory, local_host, write_headers

Client = TestClient[Any, Any]
TIMBER = 'Tick off "Order timber for the shed roof (due Friday 23 October)"?'


@pytest.fixture
async def client(
    make_client: ClientFactory, web_settings: Settings, fake_ollama: FakeOllama
) -> Client:
    write(web_settings.vault, "Tasks.md", TASKS)
    write(web_settings.vault, "Memory.md", MEMORY)
    s = with_model(web_settings, host=fake_ollama.url)
    assistant = build_assistant(s, make_llm(s), clock=lambda: NOW)
    return await make_client(s, Services(assistant=assistant))


async def post(client: Client, path: str, body: dict[str, Any]) -> Any:
    """As the MCP server sends it: the vault's token, no Origin."""
    token = get_or_create_token(token_path(client.app[SETTINGS].data_path))[0]
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    return await client.post(path, data=json.dumps(body), headers=headers)


async def test_a_proposal_waits_for_the_owner_and_says_who_asked(
    client: Client, vault: Path, fake_ollama: FakeOllama
) -> None:
    body = {"tool": "complete_task", "arguments": {"task": "timber"}, "source": "mcp"}
    first = await post(client, "/api/assistant/propose", {**body, "client": "Claude\nDesktop"})
    assert first.status == 201
    made = await first.json()
    assert made["question"] == TIMBER and made["new"] is True
    assert (
        made["asked_by"]
        == 'Asked by an MCP client calling itself "Claude Desktop", not in this chat.'
    )
    again = await post(client, "/api/assistant/propose", body)
    assert again.status == 200 and (await again.json())["new"] is False

    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    assert today["pending"] == [
        {"id": made["id"], "question": TIMBER, "asked_by": made["asked_by"]}
    ]
    assert [m["role"] for m in today["messages"]] == ["question"]
    assert today["messages"][0]["asked_by"] == made["asked_by"]
    assert "- [ ] Order timber" in (vault / "Tasks.md").read_text()  # nothing ran
    assert fake_ollama.chat_requests() == []  # no model was involved

    # The owner's Yes, from the page.
    yes = await client.post(
        "/api/assistant/answer",
        data=json.dumps({"id": made["id"], "answer": "yes"}),
        headers=write_headers(client),
    )
    assert yes.status == 200 and (await yes.json())["ran"] is True
    assert "- [x] Order timber" in (vault / "Tasks.md").read_text()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"tool": "list_tasks", "arguments": {}, "source": "mcp"}, "not a change"),
        ({"tool": "delete_note", "arguments": {}, "source": "mcp"}, "not a change"),
        ({"tool": "complete_task", "arguments": {"task": "unicorn"}, "source": "mcp"}, "unicorn"),
        ({"tool": "complete_task", "arguments": {}, "source": "mcp"}, "needs 'task'"),
        ({"tool": "complete_task", "arguments": ["timber"], "source": "mcp"}, "JSON object"),
        ({"tool": "complete_task", "arguments": {"task": "timber"}, "source": "web"}, "source"),
    ],
)
async def test_a_request_that_is_no_question_is_400_and_nothing_waits(
    client: Client, body: dict[str, Any], says: str
) -> None:
    response = await post(client, "/api/assistant/propose", body)
    assert response.status == 400
    assert says in (await response.json())["error"]["message"]
    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    assert today["pending"] == []


async def test_a_proposal_needs_the_token_even_from_the_page(client: Client) -> None:
    body = json.dumps({"tool": "remember", "arguments": {"fact": "x"}, "source": "mcp"})
    from_the_page = await client.post(
        "/api/assistant/propose", data=body, headers=write_headers(client)
    )
    assert from_the_page.status == 401
    assert (await from_the_page.json())["error"]["code"] in ("bad_token", "no_token")
    forged = await client.post(
        "/api/assistant/propose",
        data=body,
        headers={"Origin": "https://evil.example", "Content-Type": "application/json"},
    )
    assert forged.status in (401, 403)
    today = await (
        await client.get("/api/assistant/today", headers={"Host": local_host(client)})
    ).json()
    assert today["pending"] == []


async def test_a_capture_may_say_it_came_through_mcp(client: Client, vault: Path) -> None:
    response = await post(client, "/api/capture", {"text": "from an agent", "via": "mcp"})
    assert response.status == 201
    saved = (vault / (await response.json())["path"]).read_text()
    assert "via: mcp\n" in saved and saved.endswith("from an agent")
