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


def test_a_hostile_logseq_config_is_read_in_linear_time(tmp_path: Path) -> None:
    """A config.edn under the 1 MB limit made of `:hidden [` with no `]` after them: the
    regular expression scanned to the end of the file from each one, and the daemon (its
    phone page and API included) stopped answering for minutes (2.5 at 540 KB, about 8 at
    900 KB). The bound is a hang's, not a speed goal: the reading takes milliseconds."""
    import subprocess
    import sys

    logseq(tmp_path, "{:meta/version 1\n" + ":hidden [" * 100_000 + "}\n")
    # In a process of its own: a regular expression holds the interpreter until it is done,
    # so a thread could not be given up on.
    code = (
        "import sys; from pathlib import Path; "
        "from commonplace.vault.exclusions import load_exclusions; "
        "print(load_exclusions(Path(sys.argv[1]), ()).excludes('pages/garden.md'))"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading a hostile logseq/config.edn did not finish in 30 s")
    assert done.stdout.strip() == "False", done.stderr
    logseq(tmp_path, ':hidden ["a"\n:hidden ["b"]\n')  # the first list runs on to the first ]
    assert load_exclusions(tmp_path, ()).excludes("a.md")
