"""Candidate links: the user's own notes, never the daemon's, even after a month of filing."""

from __future__ import annotations

from dataclasses import dataclass

from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.tidy.candidates import find_candidates, pick_candidates
from tests.fakes.ollama import FakeOllama


@dataclass(frozen=True)
class Hit:
    path: str
    title: str
    score: float = 0.0


def test_pick_keeps_first_distinct_titles_outside_daemon_folders() -> None:
    hits = [
        Hit("Filed/2026-10-20 0805 Shed.md", "2026-10-20 0805 Shed"),
        Hit("Projects/Shed Rebuild.md", "Shed Rebuild"),
        Hit("Projects/Shed Rebuild.md", "Shed Rebuild"),
        Hit("Inbox/2026-10-20 0805.md", "2026-10-20 0805"),
        Hit("Archive/shed rebuild.md", "shed rebuild"),
        *(Hit(f"Notes/n{i}.md", f"Note {i}") for i in range(10)),
    ]
    picked = pick_candidates(hits, ("Inbox", "Filed", "Ask", "Digests"))
    assert [c.title for c in picked] == ["Shed Rebuild", *(f"Note {i}" for i in range(7))]


def test_link_candidates_stay_notes_never_a_pdf_or_image() -> None:
    hits = [
        Hit("Docs/Manual.pdf", "Manual.pdf"),
        Hit("assets/scan.png", "scan.png"),
        Hit("Projects/Shed Rebuild.md", "Shed Rebuild"),
    ]
    picked = pick_candidates(hits, ("Inbox", "Filed", "Ask", "Digests"))
    assert [c.title for c in picked] == ["Shed Rebuild"]


async def test_a_month_of_filed_captures_never_pushes_user_notes_out(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    filed = tidy_settings.vault / "Filed"
    filed.mkdir()
    for day in range(1, 31):
        for n in range(3):
            (filed / f"2026-10-{day:02d} 08{n}0 Shed roof timber {n}.md").write_text(
                f"---\ncapture_id: c{day}{n}\n---\norder the timber for the shed roof from jewson "
                f"before dave does the shed roof; shed timber roof {day}\n"
            )
    inbox = tidy_settings.vault / "Inbox"
    inbox.mkdir()
    (inbox / "2026-10-31 0900.md").write_text("shed roof timber jewson shed roof timber")
    llm = make_llm(tidy_settings)
    index = Index.open(tidy_settings, llm)
    try:
        await index.refresh()
        query = "order the timber for the shed roof from jewson by friday"
        found = await find_candidates(index, query, tidy_settings.daemon_folders())
        # Without the folder filter the filed captures crowd the top 30: the test means something.
        crowd = await index.search(query, limit=30, mode="hybrid")
    finally:
        index.close()
    titles = [c.title for c in found]
    assert sum(r.path.startswith("Filed/") for r in crowd.results) >= 25
    assert "Shed Rebuild" in titles
    assert 0 < len(titles) <= 8 and len(set(titles)) == len(titles)
    assert not any(c.path.startswith(("Filed/", "Inbox/")) for c in found)


async def test_no_index_means_no_candidates() -> None:
    assert await find_candidates(None, "anything", ("Inbox",)) == []


async def test_logseq_ask_pages_are_never_offered_to_the_model(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    """In Logseq an Ask page sits beside the owner's pages (pages/Ask___Shed roof.md): it is
    the daemon's like the Ask folder, so the model never sees it among the notes it may link
    (validation would drop the link, but the model would have read it as a choice)."""
    import dataclasses
    import json

    from commonplace.tidy.pipeline import TidyContext, tidy_capture
    from tests.tidy.conftest import answer, fast, put_capture

    logseq = fast(dataclasses.replace(settings, flavor="logseq"), fake_ollama.url)
    pages = logseq.vault / "pages"
    pages.mkdir()
    (pages / "Ask___Shed roof timber.md").write_text(
        "- ?? when do I order the timber for the shed roof from jewson\n"
        "  - The shed roof timber comes from jewson; order the shed roof timber by friday.\n"
    )
    (pages / "ask%2FJewson timber.md").write_text("- ?? shed roof timber jewson order\n")
    (pages / "Shed roof plans.md").write_text("- the shed roof timber: jewson, before friday\n")
    rel = put_capture(logseq, "2026-10-31 0900.md", "order the shed roof timber from jewson")
    llm = make_llm(logseq)
    index = Index.open(logseq, llm)
    try:
        await index.refresh()
        crowd = await index.search("order the shed roof timber from jewson", limit=30)
        fake_ollama.enqueue_chat(answer("Shed timber"))
        await tidy_capture(TidyContext(logseq, llm, index), rel)
    finally:
        index.close()
    # The Ask pages rank high for these words: the test means something.
    assert {"pages/Ask___Shed roof timber.md", "pages/ask%2FJewson timber.md"} <= {
        r.path for r in crowd.results
    }
    [request] = fake_ollama.chat_requests()
    seen = json.dumps(request, ensure_ascii=False)
    assert "Shed roof plans" in seen
    assert "Ask/Shed roof timber" not in seen and "ask/Jewson timber" not in seen


async def test_long_notes_leave_room_for_eight_distinct_candidates(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    """The model chooses among 8 notes, however many passages the best ones have. The Logseq
    docs graph has long pages (a changelog, a tutorial) whose passages alone filled the 30
    search results: the model was offered 5 notes, and the pages it needed were not among them."""
    long = tidy_settings.vault / "Long"
    long.mkdir()
    for n in range(3):
        sections = "\n\n".join(
            f"## Part {i}\n\nshed roof timber from jewson, part {i} of the shed roof timber "
            f"log {n}: timber for the shed roof.\n"
            for i in range(16)
        )
        (long / f"Shed log {n}.md").write_text(f"# Shed log {n}\n\n{sections}")
    short = tidy_settings.vault / "Short"
    short.mkdir()
    for n in range(8):
        (short / f"Shed note {n}.md").write_text(f"the shed roof timber, note {n}\n")
    llm = make_llm(tidy_settings)
    index = Index.open(tidy_settings, llm)
    try:
        await index.refresh()
        query = "shed roof timber from jewson"
        found = await find_candidates(index, query, tidy_settings.daemon_folders())
        passages = await index.search(query, limit=30, mode="hybrid")
    finally:
        index.close()
    # The long notes' passages fill the 30 best passages: the test means something.
    assert {r.path for r in passages.results} <= {f"Long/Shed log {n}.md" for n in range(3)}
    assert len(found) == 8
    assert {c.title for c in found} >= {"Shed log 0", "Shed log 1", "Shed log 2"}
