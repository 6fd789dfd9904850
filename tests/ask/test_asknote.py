"""Finding `?? ` questions and inserting answers below them: pure text functions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.ask.asknote import (
    answered_ids,
    find_questions,
    insert_answer,
    is_ask_note,
    pending_questions,
    question_id,
    split_lines,
)
from commonplace.ask.models import REFUSAL, Answer, Source

SOURCE = Source(
    1,
    "Travel/Lisbon Trip.md",
    "Lisbon Trip",
    "Overview > Flights",
    "EZY6041 at 06:40.",
    "2026-08-16",
)
ANSWER = Answer("q", "You fly at 06:40 [1].", refused=False, sources=(SOURCE,))


def only_insertions(old: str, new: str) -> list[str]:
    """The lines added; fails unless the old lines appear in the new text, in order, unchanged.

    A greedy subsequence match: if every old line is found in order, the new text is the old
    one with lines inserted (a diff tool could show a move instead when lines repeat).
    """
    # Line breaks are compared apart (test_crlf_notes_stay_crlf): a question on the last line
    # gains one, which is the only change an old line may see.
    a = [line.removesuffix("\n").removesuffix("\r") for line in split_lines(old)]
    b = [line.removesuffix("\n").removesuffix("\r") for line in split_lines(new)]
    added: list[str] = []
    k = 0
    for line in a:
        while k < len(b) and b[k] != line:
            added.append(b[k])
            k += 1
        assert k < len(b), f"old line {line!r} is missing or out of order"
        k += 1
    return added + b[k:]


def test_question_marker_in_both_flavours_and_not_in_code_quotes_or_frontmatter() -> None:
    text = (
        "---\nnote: ?? not a question\n---\n"
        "?? When do we fly?\n"
        "- ?? As a list item\n"
        "\t- ?? Logseq child block\n"
        "> ?? quoted, not a question\n"
        "```\n?? code, not a question\n```\n"
        "??no space, not a question\n"
        "Some ?? in the middle\n"
    )
    found = find_questions(text)
    assert [q.text for q in found] == ["When do we fly?", "As a list item", "Logseq child block"]
    assert found[0].line == 3


def test_question_id_ignores_case_spacing_and_end_punctuation() -> None:
    assert question_id("When do we fly?") == question_id("when  do we fly")
    assert question_id("When do we fly?") != question_id("When do we land?")


def test_obsidian_answer_is_a_callout_directly_below_with_links_and_marker() -> None:
    old = "# Questions\n\n?? When do we fly?\nNext paragraph the user wrote.\n"
    (q,) = find_questions(old)
    new = insert_answer(old, q.qid, ANSWER, "obsidian")
    assert new is not None
    added = only_insertions(old, new)
    lines = new.splitlines()
    assert lines[3] == "> [!answer] Answer"
    assert "> You fly at 06:40 [1]." in lines
    assert any(
        "[[Travel/Lisbon Trip#Flights|Lisbon Trip › Flights]] (2026-08-16)" in ln for ln in lines
    )
    assert lines[lines.index("Next paragraph the user wrote.") - 1] == ""  # callout closed
    assert added[-2].startswith(f"> %% cp-answer: {q.qid} %%")
    assert pending_questions(new) == []
    assert q.qid in answered_ids(new)
    assert insert_answer(new, q.qid, ANSWER, "obsidian") is None


def test_edited_question_is_answered_below_the_old_answer_marked_new() -> None:
    old = "?? When do we fly?\nafter\n"
    first = insert_answer(old, find_questions(old)[0].qid, ANSWER, "obsidian")
    assert first is not None
    edited = first.replace("?? When do we fly?", "?? When do we fly home?")
    (q,) = pending_questions(edited)
    second = insert_answer(edited, q.qid, ANSWER, "obsidian")
    assert second is not None
    only_insertions(edited, second)
    lines = second.splitlines()
    titles = [i for i, ln in enumerate(lines) if ln.startswith("> [!answer]")]
    assert len(titles) == 2
    assert lines[titles[1]] == "> [!answer] New answer (the question was changed)"
    assert titles[1] > titles[0]
    assert lines[-1] == "after"


def test_question_on_the_last_line_without_newline() -> None:
    old = "intro\n?? When do we fly?"
    (q,) = find_questions(old)
    new = insert_answer(old, q.qid, ANSWER, "obsidian")
    assert new is not None
    assert new.startswith("intro\n?? When do we fly?\n> [!answer]")
    assert new.endswith("%%\n")


def test_crlf_notes_stay_crlf() -> None:
    old = "?? When do we fly?\r\nmore\r\n"
    new = insert_answer(old, find_questions(old)[0].qid, ANSWER, "obsidian")
    assert new is not None
    assert "\n" not in new.replace("\r\n", "")


def test_list_item_question_gets_an_indented_callout() -> None:
    old = "- ?? When do we fly?\n- next item\n"
    new = insert_answer(old, find_questions(old)[0].qid, ANSWER, "obsidian")
    assert new is not None
    assert new.splitlines()[1] == "  > [!answer] Answer"


def test_logseq_answer_is_a_child_block_with_a_property() -> None:
    old = "- ?? When do we fly?\n\t- my own sub-note\n- another block\n"
    (q,) = find_questions(old)
    new = insert_answer(old, q.qid, ANSWER, "logseq")
    assert new is not None
    only_insertions(old, new)
    lines = new.splitlines()
    assert lines[1] == "\t- **Answer**"
    assert lines[2] == f"\t  cp-answer:: {q.qid}"
    assert lines[3] == "\t\t- You fly at 06:40 [1]."
    assert "\t\t\t- [1] [[Lisbon Trip]] › Flights (2026-08-16): EZY6041 at 06:40." in lines
    assert lines[-2:] == ["\t- my own sub-note", "- another block"]
    assert pending_questions(new) == []


def test_logseq_new_answer_goes_after_the_old_answer_subtree() -> None:
    old = "- ?? When do we fly?\n- another block\n"
    first = insert_answer(old, find_questions(old)[0].qid, ANSWER, "logseq")
    assert first is not None
    edited = first.replace("?? When do we fly?", "?? When do we fly back?")
    (q,) = pending_questions(edited)
    second = insert_answer(edited, q.qid, ANSWER, "logseq")
    assert second is not None
    only_insertions(edited, second)
    lines = second.splitlines()
    assert lines.count("\t- **Answer**") == 1
    new_at = lines.index("\t- **New answer (the question was changed)**")
    assert new_at > lines.index("\t- **Answer**")
    assert lines[-1] == "- another block"


def test_answer_text_cannot_forge_questions_markers_or_properties() -> None:
    hostile = Answer(
        "q", "?? Is this a question\ncp-answer:: 0123456789\nkey:: value %%", refused=False
    )
    for flavor in ("obsidian", "logseq"):
        old = "- ?? Real question\n"
        q = find_questions(old)[0]
        new = insert_answer(old, q.qid, hostile, flavor)
        assert new is not None
        assert [x.text for x in find_questions(new)] == ["Real question"]
        assert answered_ids(new) == {q.qid}


def test_refusal_has_its_own_title() -> None:
    old = "?? What is my blood type?\n"
    refused = Answer("q", REFUSAL, refused=True)
    new = insert_answer(old, find_questions(old)[0].qid, refused, "obsidian")
    assert new is not None
    assert "> [!answer] Not in your notes" in new
    assert "Sources" not in new


def test_repeated_question_gets_its_own_id() -> None:
    text = "?? Same?\n?? Same?\n"
    ids = [q.qid for q in find_questions(text)]
    assert len(set(ids)) == 2


LINE = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=30
    ),
    st.sampled_from(
        ["?? Where is it?", "- ?? In a list?", "\t- child", "> quote", "```", "", "---", "\r"]
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=12), st.booleans(), st.sampled_from(["obsidian", "logseq"]))
def test_inserting_only_adds_lines(lines: list[str], trailing: bool, flavor: str) -> None:
    old = "\n".join(lines) + ("\n" if trailing else "")
    for q in pending_questions(old):
        new = insert_answer(old, q.qid, ANSWER, flavor)
        if new is None:  # an earlier question with the same id was answered
            continue
        only_insertions(old, new)
        assert q.qid in answered_ids(new)
        assert [x.text for x in find_questions(new)] == [x.text for x in find_questions(old)]
        old = new


def test_quoted_tags_in_sources_do_not_tag_the_ask_note() -> None:
    tagged = Source(1, "Areas/Car.md", "Car", "", "MOT due #car #admin, see [[Car#MOT]].")
    old = "?? When is the MOT?\n"
    answer = Answer("q", "Soon [1].", refused=False, sources=(tagged,))
    new = insert_answer(old, find_questions(old)[0].qid, answer, "obsidian")
    assert new is not None
    assert "\\#car \\#admin, see [[Car#MOT]]." in new


def test_which_notes_are_ask_notes() -> None:
    assert is_ask_note("Ask/Trip.md", "Ask", "obsidian")
    assert is_ask_note("Ask/Sub/Trip.md", "Ask", "obsidian")
    assert not is_ask_note("Askew/Trip.md", "Ask", "obsidian")
    assert not is_ask_note("pages/Ask___Trip.md", "Ask", "obsidian")
    assert is_ask_note("pages/Ask/Trip.md", "pages/Ask", "logseq")
    assert is_ask_note("pages/Ask___Trip.md", "pages/Ask", "logseq")  # namespace page Ask/Trip
    assert is_ask_note("pages/ask%2FTrip.md", "pages/Ask", "logseq")
    assert not is_ask_note("pages/Askew___Trip.md", "pages/Ask", "logseq")
    assert not is_ask_note("journals/Ask___x.md", "pages/Ask", "logseq")
