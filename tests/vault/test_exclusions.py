"""The owner's exclusions, read with each editor's own rules (vault/exclusions.py)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from commonplace.vault.exclusions import NONE, load_exclusions, log_change


def obsidian(vault: Path, filters: object) -> None:
    (vault / ".obsidian").mkdir(exist_ok=True)
    (vault / ".obsidian/app.json").write_text(json.dumps({"userIgnoreFilters": filters}))


def logseq(vault: Path, edn: str) -> None:
    (vault / "logseq").mkdir(exist_ok=True)
    (vault / "logseq/config.edn").write_text(edn)


def test_obsidian_prefixes_are_case_blind_and_slashed_rules_are_regular_expressions(
    tmp_path: Path,
) -> None:
    obsidian(tmp_path, ["Templates/", "/\\.excalidraw\\.md$/", "", 7])
    rules = load_exclusions(tmp_path, ())
    assert rules.excludes("Templates/Meeting.md")
    assert rules.excludes("templates/Daily.md")
    assert rules.excludes("Drawings/Plan.excalidraw.md")
    assert not rules.excludes("Notes/Templates/x.md")  # a prefix of the whole path
    assert not rules.excludes("Notes/Plan.md")
    assert rules.sources == ("Obsidian's excluded files (.obsidian/app.json): 2 rules",)


def test_logseq_hidden_follows_logseqs_prefix_rule_and_skips_commented_examples(
    tmp_path: Path,
) -> None:
    logseq(
        tmp_path,
        "{:meta/version 1\n"
        ' ;; E.g. :hidden ["/pages"]\n'
        ' :title "a ; not a comment"\n'
        ' :hidden ["script" "/pages/private.md" "draft\\"s"]\n}\n',
    )
    rules = load_exclusions(tmp_path, ())
    assert rules.excludes("script/build.md")
    assert rules.excludes("scripts.md")  # Logseq's rule is a plain prefix too
    assert rules.excludes("pages/private.md")
    assert rules.excludes('draft"s.md')
    assert not rules.excludes("pages/public.md")  # the commented example is not a rule
    assert not rules.excludes("Script/x.md")  # case matters in Logseq


def test_configured_rules_use_obsidians_syntax(tmp_path: Path) -> None:
    rules = load_exclusions(tmp_path, ("Archive", "/^Journal/20(19|20)-/"))
    assert rules.excludes("Archive/Old.md") and rules.excludes("Archive 2019.md")
    assert rules.excludes("Journal/2019-05-01.md")
    assert not rules.excludes("Journal/2024-05-01.md")
    assert rules.sources == ("[index] exclude: 2 rules",)


def test_unreadable_settings_add_nothing_and_say_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian/app.json").write_text("{not json")
    rules = load_exclusions(tmp_path, ("/[unclosed/", "Templates"))
    assert rules.excludes("Templates/a.md") and not rules.excludes("Notes/a.md")
    assert len(rules.problems) == 2
    assert "is not JSON" in rules.problems[1] and "not a regular expression" in rules.problems[0]
    with caplog.at_level(logging.INFO, logger="commonplace.vault.exclusions"):
        log_change(NONE, rules)
        log_change(rules, rules)  # nothing changed: nothing said again
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == "the index leaves out notes matching [index] exclude: 1 rule"
    assert len(messages) == 3


def test_no_settings_no_rules(tmp_path: Path) -> None:
    assert not load_exclusions(tmp_path, ())
    assert load_exclusions(tmp_path, ()) == NONE
