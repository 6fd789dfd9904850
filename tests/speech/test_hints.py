"""The dictation hint: names of people and places, from the vault's files."""

from __future__ import annotations

from pathlib import Path

from commonplace.speech import name_hint, vault_names
from commonplace.speech.hints import MAX_PROMPT_CHARS, capitalised_words


def test_people_notes_and_their_aliases_come_first(vault: Path) -> None:
    names = vault_names(vault)
    people = ["Maya Collins", "Sam Pritchard", "Tobi Okafor", "Zoë Martín"]
    assert names[0] == "Maya Collins"
    for person in people:
        assert person in names
    assert "Maya" in names  # an alias from the frontmatter
    assert names.index("Zoë Martín") < names.index("Lisbon")


def test_capitalised_names_from_the_text(vault: Path) -> None:
    names = vault_names(vault)
    for place in ("Lisbon", "Bristol", "Fernleaf"):
        assert place in names
    for ordinary in ("The", "Monday", "October", "I", "Plan", "Design"):
        assert ordinary not in names


def test_words_starting_a_sentence_or_in_links_are_not_names() -> None:
    text = "Bought bread. Then called Maya at Jewson.\n- Shopping list\n[[Garden Plan]] with Ravi"
    words = list(capitalised_words(text))
    assert "Maya" in words and "Jewson" in words and "Ravi" in words
    assert "Bought" not in words and "Then" not in words and "Shopping" not in words
    assert "Garden" not in words and "Plan" not in words


def test_name_hint_is_a_short_sentence(vault: Path) -> None:
    hint = name_hint(vault, limit=500)
    assert hint.startswith("Names: Maya Collins, ")
    assert hint.endswith(".")
    assert len(hint) <= MAX_PROMPT_CHARS + 1


def test_empty_vault_has_no_hint(tmp_path: Path) -> None:
    assert name_hint(tmp_path) == ""


def test_people_folder_in_logseq_pages(tmp_path: Path) -> None:
    (tmp_path / "pages" / "people").mkdir(parents=True)
    (tmp_path / "pages" / "people" / "Ada Lovelace.md").write_text("- met at the museum\n")
    assert vault_names(tmp_path, flavor="logseq") == ["Ada Lovelace"]
