"""Ask cites attachment passages like note passages; the sources link the page."""

from __future__ import annotations

import asyncio

from commonplace.ask import answer_question
from commonplace.ask.asknote import logseq_block, obsidian_block
from commonplace.ask.models import Source, attachment_link
from commonplace.config import Settings
from commonplace.index import IndexService
from tests.ask.helpers import cite_passage_with
from tests.attachments import makefiles
from tests.attachments.conftest import pages
from tests.fakes.ollama import FakeOllama
from tests.index.conftest import OpenIndex


async def test_ask_cites_page_3_of_a_pdf_and_links_it(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama
) -> None:
    makefiles.text_pdf(isettings.vault / "file.pdf", pages())
    index = open_index()
    service = IndexService(index, isettings)
    await service.startup()
    assert service._reading is not None
    await asyncio.wait_for(service._reading, 120)
    fake_ollama.chat_handler = cite_passage_with("quince", "Beside the quince hedge")
    answer = await answer_question(
        "Where does the beekeeper move the third hive?",
        index=index,
        llm=index.llm,
        settings=isettings,
    )
    assert not answer.refused and answer.findings == ()
    (source,) = answer.sources
    assert (source.path, source.page, source.label) == ("file.pdf", 3, "file.pdf, page 3")
    assert source.link() == "[[file.pdf#page=3]]"
    assert source.to_json()["page"] == 3
    written = "\n".join(obsidian_block(answer, "q1", "", edited=False))
    assert "> - [1] [[file.pdf#page=3]]" in written
    logseq = "\n".join(logseq_block(answer, "q1", "", "  ", edited=False))
    assert "- [1] ![file.pdf](../file.pdf) › page 3" in logseq


def test_the_links_of_an_attachment_in_each_flavour() -> None:
    pdf = Source(
        n=1, path="Docs/Manual.pdf", title="Manual.pdf", heading="page 4", text="x", start_line=4
    )
    assert pdf.link("obsidian") == "[[Docs/Manual.pdf#page=4]]"
    assert pdf.link("logseq") == "![Manual.pdf](../Docs/Manual.pdf)"
    image = Source(
        n=2, path="assets/scan 1.png", title="scan 1.png", heading="page 1", text="x", start_line=1
    )
    assert image.page is None and image.label == "scan 1.png"
    assert image.link("obsidian") == "[[assets/scan 1.png]]"
    assert image.link("logseq") == "![scan 1.png](../assets/scan%201.png)"
    assert (
        attachment_link("assets/a.pdf", 2, "logseq", "pages/Ask") == "![a.pdf](../../assets/a.pdf)"
    )
