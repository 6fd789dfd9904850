"""The API names a PDF passage by its page, with the query's words marked; /api/state shows
the attachments' progress."""

from __future__ import annotations

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.server.context import Services
from tests.attachments import makefiles
from tests.attachments.conftest import pages
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.server.conftest import ClientFactory


async def test_search_and_state_show_attachments(
    make_client: ClientFactory, web_settings: Settings, fake_ollama: FakeOllama
) -> None:
    settings = with_model(web_settings, host=fake_ollama.url)
    makefiles.text_pdf(settings.vault / "Docs/Manual.pdf", pages())
    index = Index.open(settings, make_llm(settings))
    try:
        await index.refresh()
        client = await make_client(settings, Services(index=index, stages={"index": index}))
        state = await (await client.get("/api/state")).json()
        assert state["index"]["attachments"]["waiting"] == 1  # queued: read in the background
        assert await index.read_attachments() == 1
        state = await (await client.get("/api/state")).json()
        assert state["index"]["attachments"]["indexed"] == 1
        assert state["index"]["attachments"]["waiting"] == 0
        response = await client.get("/api/search", params={"q": "quince hedge", "limit": "3"})
        first = (await response.json())["results"][0]
        assert (first["path"], first["page"], first["label"]) == (
            "Docs/Manual.pdf",
            3,
            "Manual.pdf, page 3",
        )
        marked = [first["snippet"][a:b].lower() for a, b in first["marks"]]
        assert "quince" in marked and "hedge" in marked
    finally:
        index.close()
