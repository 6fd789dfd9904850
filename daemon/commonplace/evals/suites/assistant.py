"""The assistant: 32 requests against the sample week, each in a fresh conversation.

The week (eval_suite/datasets/assistant/ and vault_fixture/calendar/week.ics): Monday 26 October
to Sunday 1 November 2026 in a real Radicale, a tasks note, a memory note and a recorded
forecast, with "now" Monday 26 October 2026 09:00 in Europe/London unless a request says
otherwise. Nothing is ever said Yes to, so nothing changes: the grade is on what the program
asked. Every model request and reply, tool call, proposal, reminder and correction is kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from commonplace.assistant import build_assistant, checks
from commonplace.assistant.engine import GAVE_UP_REPLY
from commonplace.calendar import PASSWORD_ENV, CalendarClient
from commonplace.evals import assistant_grading as grading
from commonplace.evals.fixture import REPO, copy_vault, load_jsonl
from commonplace.evals.sheets import SheetRow
from commonplace.evals.stand_ins import forecast_stand_in, radicale
from commonplace.evals.suite import EvalError, Item, ItemResult, Suite, SuiteEnv

NOW = "2026-10-26T09:00"
ZONE = "Europe/London"
WEEK_ICS = REPO / "vault_fixture" / "calendar" / "week.ics"


def load(datasets: Path) -> list[Item]:
    items = load_jsonl(datasets / "assistant.jsonl", ("id", "text", "expect"))
    for item in items:
        grading.request_kind(item)  # a malformed expectation fails here, before any model call
    return items


async def prepare(env: SuiteEnv) -> None:
    week = env.datasets / "assistant"
    if not week.is_dir() or not WEEK_ICS.is_file():
        raise EvalError(f"the sample week is missing ({week}, {WEEK_ICS})")
    vault = copy_vault(env.settings.vault, "none")
    for name in ("Tasks.md", "Memory.md"):
        shutil.copyfile(week / name, vault / name)
    stack = contextlib.AsyncExitStack()
    env.state["stack"] = stack
    server = stack.enter_context(radicale(env.workdir / "radicale", WEEK_ICS))
    recorded = json.loads((week / "forecast.json").read_text(encoding="utf-8"))
    forecast_url = await stack.enter_async_context(forecast_stand_in(recorded))
    env.settings = dataclasses.replace(
        env.settings,
        timezone=ZONE,
        calendar=dataclasses.replace(
            env.settings.calendar, url=server.url, username=server.user, timeout_s=30
        ),
        weather=dataclasses.replace(
            env.settings.weather, latitude=51.46, longitude=-2.6, place="Bristol", url=forecast_url
        ),
    )
    # Radicale takes any password here (auth none); caldav sends no login without one.
    env.state["calendar"] = CalendarClient(env.settings, env={PASSWORD_ENV: "sample-week"})
    env.info["week"] = {"calendar": str(WEEK_ICS.relative_to(REPO)), "now": NOW, "zone": ZONE}


async def cleanup(env: SuiteEnv) -> None:
    calendar = env.state.pop("calendar", None)
    if calendar is not None:
        calendar.close()
    stack = env.state.pop("stack", None)
    if stack is not None:
        await stack.aclose()


async def run_item(env: SuiteEnv, item: Item) -> ItemResult:
    tz = ZoneInfo(ZONE)
    now = datetime.fromisoformat(str(item.get("now") or NOW)).replace(tzinfo=tz)
    assistant = build_assistant(
        env.settings, env.llm, clock=lambda: now, in_memory=True, calendar=env.state["calendar"]
    )
    turn = await assistant.respond(str(item["text"]), now=now)
    proposals = [
        grading.proposal_facts(p.kind, p.params, env.settings.vault) | {"question": p.question}
        for p in turn.proposals
    ]
    tools = [c["name"] for c in turn.tool_calls]
    grade = grading.grade(
        item,
        tools=tools,
        proposals=proposals,
        corrections=turn.corrections,
        reply=turn.reply,
        tz=tz,
        gave_up=turn.reply == GAVE_UP_REPLY and not turn.model_text,
    )
    record = {
        "text": item["text"],
        "now": now.isoformat(),
        "mode": turn.mode,
        "reply": turn.reply,
        "model_text": turn.model_text,
        "tool_calls": turn.tool_calls,
        "proposals": proposals,
        "reminders": turn.reminders,
        "corrections": turn.corrections,
        "expect": item["expect"],
        "grade": grade,
    }
    verdict = "right" if grade["right"] else f"wrong ({grade['miss']})"
    row = SheetRow(
        str(item["id"]),
        {
            "request": str(item["text"]),
            "expected": _expected(item),
            "reply": turn.reply,
            "asked": "\n".join(str(p["question"]) for p in proposals) or "(no question)",
            "tools": ", ".join(tools) or "(none)",
        },
        verdict,
    )
    return ItemResult(str(item["id"]), record, rows=(row,), line=verdict)


def _expected(item: Mapping[str, Any]) -> str:
    expect = item["expect"]
    if "proposal" in expect:
        return "a question: " + ", ".join(f"{k} {v}" for k, v in expect["proposal"].items())
    tools = " or ".join(expect.get("tools") or []) or "no tool"
    facts = "; ".join(" / ".join(g) for g in expect.get("facts") or [])
    return tools + (f"; facts: {facts}" if facts else "")


def figures(results: Sequence[ItemResult]) -> dict[str, Any]:
    """One run: right of all, by kind of request, the misses by reason (with the requests), and
    the program's reminders and corrections. Every count is there, zeros too, so that runs
    average."""
    misses: Counter[str] = Counter({m: 0 for m in grading.MISSES})
    missed: dict[str, list[str]] = {}
    kinds = {k: {"right": 0, "of": 0} for k in ("change", "read", "none")}
    reminders: Counter[str] = Counter({k: 0 for k in checks.REMINDER_KINDS})
    corrections = 0
    right = 0
    set_from_words = repeated = 0  # arguments the owner's words set; calls made again
    right_with_words = 0  # right requests whose arguments the owner's words set
    modes: Counter[str] = Counter()
    for r in results:
        grade = r.record.get("grade") or {}
        kind = grade.get("kind") or grading.request_kind(r.record["dataset"])
        kinds[kind]["of"] += 1
        miss = "model error" if r.error else str(grade.get("miss", ""))
        if miss:
            misses[miss] += 1
            missed.setdefault(miss, []).append(r.item)
        else:
            right += 1
            kinds[kind]["right"] += 1
        reminders.update(r.record.get("reminders") or [])
        corrections += len(r.record.get("corrections") or [])
        calls = r.record.get("tool_calls") or []
        set_from_words += sum(len(c.get("from_words") or {}) for c in calls)
        right_with_words += bool(not miss and any(c.get("from_words") for c in calls))
        repeated += sum(1 for c in calls if c.get("repeated"))
        if r.record.get("mode"):
            modes[str(r.record["mode"])] += 1
    return {
        "right": right,
        "requests": len(results),
        "by_kind": kinds,
        "misses": dict(misses),
        "missed": missed,
        "reminders": dict(reminders),
        "corrections": corrections,
        "set_from_words": set_from_words,
        "right_with_words": right_with_words,
        "repeated_calls": repeated,
        "schema_mode": modes.get("schema", 0),
    }


def report(f: Mapping[str, Any]) -> list[str]:
    """For one run (whole numbers) or the mean of several (the misses' requests: run 1's)."""
    lines = [f"right (program): {f['right']:g} of {f['requests']:g}"]
    lines.append(
        "by kind: "
        + ", ".join(f"{k} {v['right']:g}/{v['of']:g}" for k, v in f["by_kind"].items() if v["of"])
    )
    one_run = isinstance(f["right"], int)
    for miss, count in f["misses"].items():
        if count:
            which = f["missed"].get(miss, []) if one_run else []
            lines.append(f"missed, {miss}: {count:g}" + (f" ({', '.join(which)})" if which else ""))
    sent = ", ".join(f"{k} {v:g}" for k, v in f["reminders"].items() if v) or "none"
    lines.append(f"reminders sent: {sent}; replies corrected: {f['corrections']:g}")
    if "set_from_words" in f:  # runs kept before these figures existed have none
        lines.append(
            f"arguments set from the owner's words: {f['set_from_words']:g} (in "
            f"{f['right_with_words']:g} of the right requests); calls made again (not run): "
            f"{f['repeated_calls']:g}; requests in schema mode: {f['schema_mode']:g}"
        )
    return lines


SUITE = Suite(
    name="assistant",
    about="the assistant's 32 requests: the right question asked, the right tool, no tool, "
    "and no reply the program had to correct",
    needs_chat=True,
    needs_embed=False,
    load=load,
    prepare=prepare,
    run_item=run_item,
    figures=figures,
    report=report,
    cleanup=cleanup,
    sheet_columns=("request", "expected", "reply", "asked", "tools"),
    how_to_grade=(
        "Each row is one request in a fresh conversation on Monday 26 October 2026 at 09:00. "
        "The program has graded whether the right question was asked or the right tool used. "
        "Grade the reply's wording as the owner would: is it true to what the tools showed, "
        "short, and does it say plainly that a change waits for Yes? `1` good, `0` bad, `0.5` "
        "partly; leave it empty to skip."
    ),
)
