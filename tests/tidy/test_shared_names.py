"""Two notes with one name: a filed note's link must open the note the model was shown.

The Obsidian Help vault has two `Templates.md` (the core plugin's, and Web Clipper's) and two
`Security and privacy.md`. Obsidian opens `[[Templates]]` as one of them, whichever the capture
was about; it writes such a link with the note's path (`[[Obsidian Web Clipper/Templates]]`),
and so does tidy.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from commonplace.capture.inbox import parse_capture
from commonplace.config import Settings
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.tidy.catalog import VaultCatalog, VaultFacts
from commonplace.tidy.models import Candidate, Proposal
from commonplace.tidy.pipeline import TidyContext, tidy_capture
from commonplace.tidy.validate import decide
from commonplace.vault import parse_note
from tests.fakes.ollama import FakeOllama
from tests.tidy.conftest import answer, fast, filed_notes, put_capture

LONDON = ZoneInfo("Europe/London")
NOW = datetime(2026, 10, 26, 9, 0, tzinfo=LONDON)
CLIPPER = "Obsidian Web Clipper/Templates.md"
PLUGIN = "Plugins/Templates.md"


def write(vault: Path, rel: str, text: str) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(text, encoding="utf-8")


async def test_a_link_to_a_shared_name_is_written_with_the_notes_path(
    settings: Settings, fake_ollama: FakeOllama
) -> None:
    s = fast(settings, fake_ollama.url)
    write(
        s.vault,
        PLUGIN,
        "Templates lets you insert pre-defined snippets of text into your active note.\n\n"
        "## Set your template folder\n\nChoose the folder that holds your templates.\n",
    )
    write(
        s.vault,
        CLIPPER,
        "Web Clipper templates decide how a clipped web page is saved: a recipe template "
        "keeps the ingredients and steps of a recipe page you clip.\n",
    )
    rel = put_capture(s, "2026-10-26 0900.md", "make a web clipper template for recipe pages")
    llm = make_llm(s)
    index = Index.open(s, llm)
    fake_ollama.enqueue_chat(answer("Recipe clipper template", links=["Templates"]))
    try:
        await index.refresh()
        await tidy_capture(TidyContext(s, llm, index, now=lambda: NOW), rel)
    finally:
        index.close()
    [request] = fake_ollama.chat_requests()
    enum = request["format"]["properties"]["links"]["items"]["enum"]
    assert enum.count("Templates") == 1  # the model was shown one Templates: the clipper's
    [filed] = filed_notes(s)
    note = parse_note(f"Filed/{filed.name}", filed.read_text(encoding="utf-8"))
    assert note.frontmatter["related"][0] == "[[Obsidian Web Clipper/Templates]]"
    assert "Related: [[Obsidian Web Clipper/Templates]]" in note.body
    assert "[[Templates]]" not in filed.read_text(encoding="utf-8")
    # Both notes still count as the titles a link may name.
    assert VaultCatalog(s).facts().title_paths["templates"] == (CLIPPER, PLUGIN)


FACTS = VaultFacts(
    titles={"templates": "Templates", "home": "Home"},
    title_paths={"templates": (CLIPPER, PLUGIN), "home": ("Home.md",)},
    tags=Counter(),
)
CAPTURE = parse_capture(
    "Inbox/2026-10-26 0900.md", b"a template for the daily note, and the home page", LONDON
)


def links(proposed: list[str], candidates: list[Candidate], flavor: str = "obsidian") -> object:
    return decide(
        Proposal(links=proposed), CAPTURE, FACTS, candidates=candidates, flavor=flavor
    ).links


def test_the_shown_note_decides_which_of_two_notes_a_name_means() -> None:
    shown = [Candidate("Templates", PLUGIN), Candidate("Home", "Home.md")]
    assert links(["templates", "Home"], shown) == ("Plugins/Templates", "Home")


def test_a_path_the_model_wrote_names_the_note_itself() -> None:
    shown = [Candidate("Templates", PLUGIN)]
    assert links(["Obsidian Web Clipper/Templates"], shown) == ("Obsidian Web Clipper/Templates",)


def test_a_shared_name_no_candidate_explains_stays_a_name() -> None:
    """Without a shown note to tell them apart there is no better link than the name."""
    assert links(["Templates"], []) == ("Templates",)


def test_a_unique_name_and_logseq_pages_stay_names() -> None:
    shown = [Candidate("Templates", PLUGIN)]
    assert links(["Home"], shown) == ("Home",)
    assert links(["Templates"], shown, flavor="logseq") == ("Templates",)
