"""Chunks for the index: headings, long sections, frontmatter, unicode, fingerprints, dates."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from commonplace.index.chunking import (
    ancestor_folders,
    chunk_budget,
    embed_text,
    fingerprint,
    index_chunks,
    index_note,
    note_date,
)
from commonplace.llm.profiles import EmbedProfile, known_profile
from commonplace.vault import estimate_tokens, parse_note

UTC = ZoneInfo("UTC")


PLAIN = EmbedProfile("some-model")  # no prefixes, no known context size


def chunks_of(
    text: str, profile: EmbedProfile = PLAIN, tokens: int = 400, path: str = "A/N.md"
) -> list:
    return index_chunks(parse_note(path, text), profile=profile, chunk_tokens=tokens, tz=UTC)


def test_chunks_follow_headings_and_keep_the_heading_path() -> None:
    text = (
        "---\ntags: [x]\nsecret: frontmatter words\n---\nIntro line.\n\n# Top\nA.\n\n## Sub\nB.\n"
    )
    chunks = chunks_of(text)
    assert [(c.heading, c.text) for c in chunks] == [
        ("", "Intro line."),
        ("Top", "A."),
        ("Top > Sub", "B."),
    ]
    assert all("frontmatter" not in c.text and "secret" not in c.embed_text for c in chunks)
    assert chunks[1].embed_text == "N > Top\n\nA."
    assert chunks[2].start_line == 10  # line numbers count the frontmatter


def test_long_section_is_split_and_no_chunk_exceeds_the_model_budget() -> None:
    para = " ".join(f"word{i}" for i in range(120))
    text = "# Long\n\n" + "\n\n".join([para] * 12)
    minilm = known_profile("all-minilm:latest")
    assert minilm is not None
    budget = chunk_budget(minilm, 400)  # MiniLM takes 256 tokens: the model wins
    assert budget < 256
    chunks = chunks_of(text, profile=minilm)
    assert len(chunks) > 3
    assert all(c.heading == "Long" for c in chunks)
    assert all(estimate_tokens(c.embed_text) <= 256 for c in chunks)
    joined = " ".join(c.text for c in chunks)
    assert joined.count("word119") == 12  # nothing is lost


def test_unicode_text_survives() -> None:
    chunks = chunks_of("# Zoë’s café\n\nNaïve résumé — 東京 🚀\n", path="People/Zoë Martín.md")
    assert chunks[0].title == "Zoë Martín"
    assert chunks[0].heading == "Zoë’s café"
    assert chunks[0].text == "Naïve résumé — 東京 🚀"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_any_text_chunks_without_error(text: str) -> None:
    for c in chunks_of(text, tokens=64):
        assert estimate_tokens(c.embed_text) <= 64 + 60


def test_fingerprint_depends_on_model_and_text() -> None:
    assert fingerprint("m", "t") == fingerprint("m", "t")
    assert fingerprint("m", "t") != fingerprint("m2", "t")
    assert fingerprint("m", "t") != fingerprint("m", "t ")
    assert embed_text(PLAIN, "T", "", "x", with_context=False) == "x"


def test_note_date_prefers_captured_then_date_then_created_then_mtime() -> None:
    mtime = dt.datetime(2026, 5, 1, 12, tzinfo=UTC).timestamp()
    assert (
        note_date({"captured": "2026-10-19T07:42", "date": "2020-01-01"}, mtime, UTC)
        == "2026-10-19"
    )
    assert note_date({"date": dt.date(2026, 1, 2)}, mtime, UTC) == "2026-01-02"
    assert note_date({"created": dt.datetime(2025, 3, 4, 5, 6)}, mtime, UTC) == "2025-03-04"
    assert note_date({"captured": "soon"}, mtime, UTC) == "2026-05-01"


def test_ancestor_folders() -> None:
    assert ancestor_folders("Areas/Health/Dentist.md") == ["Areas", "Areas/Health"]
    assert ancestor_folders("Home.md") == []


def test_the_whole_note_for_keyword_search() -> None:
    note = parse_note(
        "Areas/Health/Dentist.md",
        "---\naliases: [Teeth]\ntags: [health, admin]\nclinic: Harbour Street\n"
        "created: 2024-05-20\nurgent: false\nsee:\n  - Dr Okafor\n  - {room: 4}\n---\n"
        "# Dentist\n\nCheck-up in May. #teeth\n",
    )
    whole = index_note(note)
    # aliases and tags (frontmatter and inline) say what the note is, as its title does
    assert whole.title == "Dentist Teeth health admin teeth"
    assert whole.where == "Areas/Health/Dentist"
    # the frontmatter's other values come before the body; its keys and true/false do not
    assert whole.text == (
        "Harbour Street\n2024-05-20\nDr Okafor\n4\n# Dentist\n\nCheck-up in May. #teeth\n"
    )
    assert whole.folders == ["Areas", "Areas/Health"]


def test_a_logseq_pages_properties_are_not_added_twice() -> None:
    text = "alias:: Teeth\ntags:: health\nclinic:: Harbour Street\n\n- Check-up in May.\n"
    whole = index_note(parse_note("pages/Dentist.md", text, "logseq"), "logseq")
    assert whole.title == "Dentist Teeth health"
    assert whole.text == text  # the properties are already in the body


def test_a_dated_title_gives_only_its_words_as_context() -> None:
    assert embed_text(PLAIN, "2026-10-20 0805", "", "text") == "text"
    assert (
        embed_text(PLAIN, "2026-10-20 0805 Shed timber", "Order", "x") == "Shed timber > Order\n\nx"
    )
    assert embed_text(PLAIN, "2024_01_15", "Meeting", "x") == "Meeting\n\nx"
    assert embed_text(PLAIN, "1984", "", "x") == "1984\n\nx"  # a year alone is a name
