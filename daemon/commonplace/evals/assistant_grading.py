"""How the program grades one assistant request: strictly, and by structure, never by wording.

- A request that changes something is right only if the program asked the right question: the
  turn made exactly one proposal, and its structured form (action, the real event or task, the
  new time) is the expected one. The question's wording is for a person to judge.
- A request that only reads is right only if the model called one of the right tools, proposed
  nothing, the program did not have to correct its reply, and the reply holds the facts.
- A request that needs no tool is right only if no tool was called (and the reply holds the
  facts, where the dataset gives some).

Reminders are recorded and counted but do not by themselves make a request wrong: sending the
model back to work is the design. A correction appended to the reply (a claimed change) makes a
read or a no-proposal request wrong; on a request where the right question was asked, the
question is what counts (the owner sees it, and the correction tells them it waits for Yes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.assistant.memory import memory_lines
from commonplace.assistant.vaultfiles import read_snapshot
from commonplace.vault.markdown import todos

# Why a request was missed (each request gets the first that applies to its kind).
MISSES = (
    "model error",
    "claimed a change",
    "no proposal",
    "wrong proposal",
    "extra proposal",
    "proposed on a read",
    "no tool called",
    "wrong tool",
    "tool when none was needed",
    "facts missing",
)


def request_kind(item: Mapping[str, Any]) -> str:
    expect = item["expect"]
    if "proposal" in expect:
        return "change"
    return "read" if expect.get("tools") else "none"


def proposal_facts(kind: str, params: Mapping[str, Any], vault: Path) -> dict[str, Any]:
    """A proposal as comparable facts: its params, plus the text of a task or memory line it
    points at (those proposals carry a path and line, not the words)."""
    facts = {"kind": kind, **params}
    if kind == "complete_task":
        snap = read_snapshot(vault, str(params["path"]))
        line = snap.line(int(params["line"])) or ""
        found = todos(line)
        facts["text"] = found[0].text if found else line
    elif kind == "remove_memory":
        snap = read_snapshot(vault, "Memory.md")
        facts["text"] = next(
            (m.text for m in memory_lines(snap) if m.line == int(params["line"])), ""
        )
    return facts


def proposal_matches(expected: Mapping[str, Any], facts: Mapping[str, Any], tz: ZoneInfo) -> bool:
    """Every expected field holds: `key~` is a case-insensitive substring, times compare as
    instants (an expected time without a zone is the owner's), the rest compare equal."""
    for key, want in expected.items():
        if key.endswith("~"):
            got = str(facts.get(key[:-1]) or "")
            if str(want).casefold() not in got.casefold():
                return False
        elif not _same(want, facts.get(key), tz):
            return False
    return True


def _same(want: Any, got: Any, tz: ZoneInfo) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        w, g = _moment(want, tz), _moment(got, tz)
        if w is not None and g is not None:
            return w == g
        return want.casefold() == got.casefold()
    return bool(want == got)


def _moment(text: str, tz: ZoneInfo) -> datetime | date | None:
    try:
        if "T" in text:
            moment = datetime.fromisoformat(text)
            return moment if moment.tzinfo else moment.replace(tzinfo=tz)
        return date.fromisoformat(text)
    except ValueError:
        return None


def facts_missing(reply: str, groups: Sequence[Sequence[str]]) -> list[str]:
    """The fact groups none of whose spellings is in the reply."""
    return [" / ".join(g) for g in groups if not any(alt in reply for alt in g)]


def grade(
    item: Mapping[str, Any],
    *,
    tools: Sequence[str],
    proposals: Sequence[Mapping[str, Any]],
    corrections: Sequence[str],
    reply: str,
    tz: ZoneInfo,
) -> dict[str, Any]:
    """The program's grade: right, and if not, the first reason (one of MISSES)."""
    kind = request_kind(item)
    expect = item["expect"]
    miss = ""
    if kind == "change":
        want = expect["proposal"]
        matching = [p for p in proposals if proposal_matches(want, p, tz)]
        if corrections and not proposals:
            miss = "claimed a change"
        elif not proposals:
            miss = "no proposal"
        elif not matching:
            miss = "wrong proposal"
        elif len(proposals) > 1:
            miss = "extra proposal"
    elif kind == "read":
        allowed = set(expect["tools"])
        if proposals:
            miss = "proposed on a read"
        elif not tools:
            miss = "no tool called"
        elif not allowed & set(tools):
            miss = "wrong tool"
        elif corrections:
            miss = "claimed a change"
    elif tools:
        miss = "tool when none was needed"
    if not miss and kind != "change":
        missing = facts_missing(reply, expect.get("facts") or [])
        if missing:
            miss = "facts missing"
    return {"kind": kind, "right": not miss, "miss": miss}
