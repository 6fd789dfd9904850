"""How the program grades one assistant request: strictly, and by structure, never by wording.

The rule the assistant is measured by: a request counts as right only if the right thing was
asked or called *and the program did not have to correct the reply*. So, for every kind of
request, a reply the program corrected is wrong: a claimed change that never happened, a
question claimed that was never made, a reply cut short, or no reply at all (the program
answered in the model's place after its last allowed call). Then, by kind:

- A request that changes something is right only if the program asked the right question: the
  turn made exactly one proposal, and its structured form (action, the real event or task, the
  new time) is the expected one. The question's wording is for a person to judge.
- A request that only reads is right only if the model called one of the right tools, proposed
  nothing, and the reply holds the facts.
- A request that needs no tool is right only if no tool was called, nothing was proposed, and
  the reply holds the facts, where the dataset gives some.

Reminders are recorded and counted but do not by themselves make a request wrong: sending the
model back to work is the design; what the model says after the reminder is what is graded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.assistant import checks
from commonplace.assistant.memory import memory_lines
from commonplace.assistant.vaultfiles import read_snapshot
from commonplace.vault.markdown import todos

# Why a request was missed (each request gets the first that applies to its kind).
MISSES = (
    "model error",
    "no reply",
    "claimed a change",
    "claimed a question",
    "reply cut short",
    "reply corrected",
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


def correction_miss(correction: str) -> str:
    """The miss a correction the program appended to the reply stands for."""
    if correction == checks.NO_QUESTION:
        return "claimed a question"
    if correction == checks.CUT_SHORT:
        return "reply cut short"
    if correction.startswith("(Nothing"):  # NOTHING_PROPOSED, NOTHING_CHANGED, nothing_yet
        return "claimed a change"
    return "reply corrected"


def grade(
    item: Mapping[str, Any],
    *,
    tools: Sequence[str],
    proposals: Sequence[Mapping[str, Any]],
    corrections: Sequence[str],
    reply: str,
    tz: ZoneInfo,
    gave_up: bool = False,
) -> dict[str, Any]:
    """The program's grade: right, and if not, the first reason (one of MISSES). `gave_up`:
    the model never finished, and the reply is the program's own apology."""
    kind = request_kind(item)
    expect = item["expect"]
    miss = ""
    if gave_up:
        miss = "no reply"
    elif corrections:
        miss = correction_miss(corrections[0])
    elif kind == "change":
        want = expect["proposal"]
        matching = [p for p in proposals if proposal_matches(want, p, tz)]
        if not proposals:
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
    elif tools:
        miss = "tool when none was needed"
    if not miss and kind != "change":
        missing = facts_missing(reply, expect.get("facts") or [])
        if missing:
            miss = "facts missing"
    return {"kind": kind, "right": not miss, "miss": miss}
