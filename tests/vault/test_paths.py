"""Paths from clients: what note_in_vault and folder_in_vault let through, and why not."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonplace.vault.paths import PathRefused, folder_in_vault, note_in_vault


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "People").mkdir(parents=True)
    (root / "People/Maya.md").write_text("# Maya")
    (tmp_path / "elsewhere").mkdir()
    (root / "Out").symlink_to(tmp_path / "elsewhere")
    (root / "People/Loop one.md").symlink_to("Loop two.md")
    (root / "People/Loop two.md").symlink_to("Loop one.md")
    return root


@pytest.mark.parametrize("raw", ["People/Maya.md", "People/Nobody yet.md", "Inbox/2026.md"])
def test_notes_inside_the_vault_pass_as_given(vault: Path, raw: str) -> None:
    assert note_in_vault(vault, raw) == raw


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "bad_path"),
        ("../x.md", "bad_path"),
        ("People/../../x.md", "bad_path"),
        ("/etc/x.md", "bad_path"),
        ("~/x.md", "bad_path"),
        ("a\\b.md", "bad_path"),
        ("a\x00.md", "bad_path"),
        ("x" * 1100 + ".md", "bad_path"),
        ("Out/secret.md", "bad_path"),
        ("People/Loop one.md", "bad_path"),  # a link loop: refused, not a crash (was a 500)
        ("People/Loop one.md/x.md", "bad_path"),
        (".obsidian/app.md", "not_a_note"),
        (".git/HEAD.md", "not_a_note"),
        ("People/.hidden.md", "not_a_note"),
        ("People/Maya.png", "not_a_note"),
        ("People/Maya.md.sync-conflict-20261026.md", "not_a_note"),
    ],
)
def test_everything_else_is_refused_with_a_reason(vault: Path, raw: str, code: str) -> None:
    with pytest.raises(PathRefused) as refused:
        note_in_vault(vault, raw)
    assert refused.value.code == code and refused.value.message


def test_folders_for_a_search_filter(vault: Path) -> None:
    assert folder_in_vault(vault, "/People/") == "People"
    for raw, code in [
        ("../x", "bad_path"),
        ("Out", "bad_path"),
        (".obsidian", "not_a_note"),
        ("People/Loop one.md", "bad_path"),
    ]:
        with pytest.raises(PathRefused) as refused:
            folder_in_vault(vault, raw)
        assert refused.value.code == code


def test_a_name_in_the_other_unicode_form_finds_the_note(tmp_path: Path) -> None:
    """A vault synced from a Mac keeps "Crème brûlée.md" in NFD; search gives that path, but
    a client or a model asks in NFC, and on Linux (names are bytes) the answer was "no note"."""
    import unicodedata

    nfd = unicodedata.normalize("NFD", "Recipes/Crème brûlée.md")
    (tmp_path / "Recipes").mkdir()
    (tmp_path / nfd).write_text("# Crème brûlée\n", encoding="utf-8")
    asked = unicodedata.normalize("NFC", nfd)
    assert asked != nfd
    assert note_in_vault(tmp_path, asked) == nfd
    assert note_in_vault(tmp_path, nfd) == nfd
    assert note_in_vault(tmp_path, "Recipes/Missing.md") == "Recipes/Missing.md"
