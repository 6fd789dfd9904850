"""Frontmatter that YAML can make enormous or endless is not read (vault/yamlbounds.py).

Found by a black-box run (audit10): a 600-byte "billion laughs" block in one note held the
index job for good (it walked 387 million strings), put a tag of tens of megabytes in every tidy
prompt (Ollama refused them: 413) and took the daemon to 1.5 GB; a block nested thousands deep,
or a list that holds itself, raised RecursionError in every tidy, each with a 3,000-line
traceback, so no capture was filed while that note was in the vault.
"""

from __future__ import annotations

import time

import pytest

from commonplace.config import Settings
from commonplace.index.chunking import index_note
from commonplace.tidy.catalog import VaultCatalog
from commonplace.vault import parse_note
from commonplace.vault.yamlbounds import MAX_ALIAS_EXPANSION, MAX_DEPTH

LAUGHS = "\n".join(
    [
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        *(
            f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]"
            for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "tags: *i",
    ]
)
HOSTILE = {
    "laughs": (LAUGHS, "aliases"),
    "itself": ("tags: &t [chess, *t]", "hold itself"),
    "mapping itself": ("meta: &m {a: 1, b: *m}", "hold itself"),
    "deep": ("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5), "levels deep"),
    "parser recursion": ("a: " + "[" * 5000, "nests too deeply"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_frontmatter_is_read_as_text_with_the_reason(name: str) -> None:
    block, reason = HOSTILE[name]
    text = f"---\n{block}\n---\nThe words below #real\n"
    started = time.monotonic()
    note = parse_note("Bomb.md", text)
    indexed = index_note(note)
    # Seconds, not minutes or a crash: "parser recursion" takes about 1 s alone and 3-7 s on a
    # loaded machine (make test-busy), so the bound is for the busy one.
    assert time.monotonic() - started < 30
    assert note.frontmatter == {}
    assert note.frontmatter_error is not None and reason in note.frontmatter_error
    assert note.tags == ("real",)
    assert note.body == text  # kept as the note's own words, as any unreadable block is
    assert len(indexed.title) < 100 and len(indexed.text) < 2 * len(text)


def test_ordinary_aliases_and_nesting_are_still_read() -> None:
    """Merge keys and a list repeated a few times are what people do write."""
    block = (
        "base: &base {place: Bristol, kind: work}\n"
        "trip: {<<: *base, kind: travel}\n"
        "people: &who [Maya, Sam]\n"
        "also: *who\n"
        "tags: [chess, " + "[" * (MAX_DEPTH - 3) + "x" + "]" * (MAX_DEPTH - 3) + "]\n"
    )
    note = parse_note("Fine.md", f"---\n{block}---\nbody\n")
    assert note.frontmatter_error is None
    assert note.frontmatter["trip"] == {"place": "Bristol", "kind": "travel"}
    assert note.frontmatter["also"] == ["Maya", "Sam"]
    assert "chess" in note.tags


def test_aliases_may_add_values_up_to_the_bound() -> None:
    items = ", ".join(["x"] * 100)
    fits = MAX_ALIAS_EXPANSION // 101
    block = f"a: &a [{items}]\nb: [{', '.join(['*a'] * fits)}]"
    assert parse_note("Ok.md", f"---\n{block}\n---\n").frontmatter_error is None
    block = f"a: &a [{items}]\nb: [{', '.join(['*a'] * (fits + 2))}]"
    assert "aliases" in (parse_note("No.md", f"---\n{block}\n---\n").frontmatter_error or "")


def test_tidy_catalog_survives_every_hostile_note(settings: Settings) -> None:
    """The catalog tidy validates against reads every note: one hostile note raised out of it,
    and every capture's tidy failed."""
    for i, (block, _) in enumerate(HOSTILE.values()):
        (settings.vault / f"Hostile {i}.md").write_text(f"---\n{block}\n---\nwords\n")
    started = time.monotonic()
    facts = VaultCatalog(settings).facts()
    assert time.monotonic() - started < 30
    assert "maya collins" in facts.titles and "hostile 0" in facts.titles
    assert all(len(tag) < 100 for tag in facts.top_tags())
