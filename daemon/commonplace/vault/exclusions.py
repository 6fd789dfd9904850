"""Notes the owner keeps out of search: the editor's own exclusions and `[index] exclude`.

An Obsidian owner who lists `Templates/` under Settings > Files and links > Excluded files, or
a Logseq owner who lists a folder under `:hidden` in `logseq/config.edn`, has already said
those pages are not part of what they search. Answering from a template's `{{date}}`
placeholders, or quoting an archive the owner hid, would contradict them; so the index leaves
out what the editor leaves out, with the editor's own matching rules, read again at every
periodic scan so a change there reaches the index within one scan interval.

Only the index (search, Ask's passages, related notes, tidy's candidate links) follows these
rules. Nothing here hides a note from tidy, the assistant's task list or the digest: an
exclusion says "not in my search results", not "not mine".
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

OBSIDIAN_SETTINGS = ".obsidian/app.json"  # {"userIgnoreFilters": ["Templates/", "/regex/"]}
LOGSEQ_SETTINGS = "logseq/config.edn"  # :hidden ["/archived" "script"]
_MAX_SETTINGS_BYTES = 1 << 20


@dataclass(frozen=True)
class Exclusions:
    """Compiled rules; `sources` says where they came from, for the log and `doctor`."""

    patterns: tuple[re.Pattern[str], ...] = ()
    sources: tuple[str, ...] = ()
    problems: tuple[str, ...] = field(default=(), compare=False)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def excludes(self, rel_path: str) -> bool:
        """True when the vault-relative, '/'-separated `rel_path` is left out of the index."""
        return any(p.search(rel_path) for p in self.patterns)


NONE = Exclusions()


def obsidian_pattern(rule: str) -> re.Pattern[str] | None:
    """Obsidian's rule: `/.../` is a regular expression, anything else a path prefix; both
    case-blind (as Obsidian's excluded files are matched). None for an empty rule."""
    rule = rule.strip()
    if not rule:
        return None
    if len(rule) > 2 and rule.startswith("/") and rule.endswith("/"):
        return re.compile(rule[1:-1], re.IGNORECASE)
    return re.compile("^" + re.escape(rule.lstrip("/")), re.IGNORECASE)


def logseq_pattern(rule: str) -> re.Pattern[str] | None:
    """Logseq's rule (logseq.common.config/hidden?): the path, with a leading '/', starts with
    the rule, given a leading '/' if it has none; case matters. So "script" and "/script" both
    hide `script/...` and also `scripts.md`, exactly as Logseq does."""
    rule = rule.strip()
    if not rule:
        return None
    return re.compile("^" + re.escape(rule.lstrip("/")))


Compiler = Callable[[str], "re.Pattern[str] | None"]


def load_exclusions(vault: Path, configured: Iterable[str]) -> Exclusions:
    """The rules in force now: `[index] exclude` (Obsidian's syntax) plus the editor's own.

    Both editors' settings are read whatever the `flavor` setting (it says how the daemon
    writes, not what the owner hid; a vault opened in both keeps both); a settings file that
    cannot be read or parsed adds nothing and is named in `problems`."""
    patterns: list[re.Pattern[str]] = []
    sources: list[str] = []
    problems: list[str] = []

    def add(rules: Iterable[str], compile_rule: Compiler, source: str) -> None:
        count = 0
        for rule in rules:
            try:
                pattern = compile_rule(rule)
            except re.error as exc:
                problems.append(f"{source}: {rule!r} is not a regular expression ({exc})")
                continue
            if pattern is not None:
                patterns.append(pattern)
                count += 1
        if count:
            sources.append(f"{source}: {count} rule{'' if count == 1 else 's'}")

    add(configured, obsidian_pattern, "[index] exclude")
    rules, problem = _obsidian_rules(vault)
    add(rules, obsidian_pattern, f"Obsidian's excluded files ({OBSIDIAN_SETTINGS})")
    if problem:
        problems.append(problem)
    rules, problem = _logseq_rules(vault)
    add(rules, logseq_pattern, f"Logseq's :hidden ({LOGSEQ_SETTINGS})")
    if problem:
        problems.append(problem)
    return Exclusions(tuple(patterns), tuple(sources), tuple(problems))


def _read(vault: Path, rel: str) -> tuple[str | None, str | None]:
    text, problem = read_settings(vault, rel)
    if problem is not None:
        problem += "; its exclusions are not used"
    return text, problem


def read_settings(vault: Path, rel: str) -> tuple[str | None, str | None]:
    """An editor's settings file: (text, None), (None, what is wrong with it: "logseq/config.edn
    could not be read (...)"), or (None, None) when there is none (a link is not followed)."""
    path = vault / rel
    try:
        if path.is_symlink() or not path.is_file():
            return None, None
        if path.stat().st_size > _MAX_SETTINGS_BYTES:
            return None, f"{rel} is over 1 MB"
        return path.read_text(encoding="utf-8", errors="replace"), None
    except OSError as exc:
        return None, f"{rel} could not be read ({exc.strerror or exc})"


def _obsidian_rules(vault: Path) -> tuple[list[str], str | None]:
    text, problem = _read(vault, OBSIDIAN_SETTINGS)
    if text is None:
        return [], problem
    try:
        data = json.loads(text)
    except ValueError:
        return [], f"{OBSIDIAN_SETTINGS} is not JSON; its excluded files are not used"
    rules = data.get("userIgnoreFilters") if isinstance(data, dict) else None
    if not isinstance(rules, list):
        return [], None
    return [r for r in rules if isinstance(r, str)], None


_HIDDEN = re.compile(r":hidden\s*\[")
_EDN_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _logseq_rules(vault: Path) -> tuple[list[str], str | None]:
    text, problem = _read(vault, LOGSEQ_SETTINGS)
    if text is None:
        return [], problem
    clean = without_edn_comments(text)
    # The first `:hidden [` and the items up to the next `]`, found in two linear scans: one
    # regular expression for both scanned to the end of the file from every `:hidden [` that
    # has no `]` after it, and a 540 KB config.edn of them held the daemon for 2.5 minutes.
    match = _HIDDEN.search(clean)
    end = -1 if match is None else clean.find("]", match.end())
    if match is None or end < 0:
        return [], None
    items = clean[match.end() : end]
    return [_unescape(m.group(1)) for m in _EDN_STRING.finditer(items)], None


def edn_string(text: str, key: str) -> str | None:
    """The string value of the keyword `key` (":journal/page-title-format") in EDN text whose
    comments are already blanked (without_edn_comments), or None when it is absent or not a
    string."""
    edge = r"(?![\w*+!?<>=/.:#'-])"  # the keyword ends here (not ":journal/page-title-formats")
    match = re.search(
        rf"(?<![\w*+!?<>=/.:#'-]){re.escape(key)}{edge}[\s,]*{_EDN_STRING.pattern}", text
    )
    return None if match is None else _unescape(match.group(1))


def edn_keyword(text: str, key: str) -> str | None:
    """The keyword value of `key` (":file/name-format :legacy" gives "legacy") in EDN text
    whose comments are already blanked, or None when it is absent or not a keyword."""
    edge = r"(?![\w*+!?<>=/.:#'-])"
    match = re.search(
        rf"(?<![\w*+!?<>=/.:#'-]){re.escape(key)}{edge}[\s,]*:([\w*+!?<>=/.#'-]+)", text
    )
    return None if match is None else match.group(1)


def without_edn_comments(text: str) -> str:
    """The EDN text with `;` comments blanked (Logseq's default config.edn shows a commented
    `:hidden [...]` example before the real one), strings left intact."""
    out: list[str] = []
    in_string = escaped = in_comment = False
    for ch in text:
        if in_comment:
            if ch == "\n":
                in_comment = False
                out.append(ch)
            continue
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == ";":
            in_comment = True
            continue
        out.append(ch)
    return "".join(out)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def log_change(before: Exclusions, after: Exclusions) -> None:
    """Say once what the index leaves out, and each problem, when the rules change."""
    if after == before and after.problems == before.problems:
        return
    if after:
        log.info("the index leaves out notes matching %s", ", ".join(after.sources))
    elif before:
        log.info("the index no longer leaves any note out")
    for problem in after.problems:
        if problem not in before.problems:
            log.warning("%s", problem)
