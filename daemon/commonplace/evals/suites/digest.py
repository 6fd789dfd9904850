"""Digest: the fixture week's digest (2026-W43), and every sentence the model wrote in it.

The week's captures are filed by code from tidy.jsonl's expected links and to-dos, with the
titles below (written with the suite, before any measurement, as a good tidy would title
them), so this suite measures the digest alone, not a model's tidying. Each run
writes the digest once; the model's sentences go to the sheet, one row each, for a person to
mark supported or unsupported against that run's lists (kept as digest-run-N.md), with
whether the note shows it. The program's verdict on each sentence is the digest's own screen
(digest/screen.py: a sentence it stops is left out of the note), and it grades the paragraph
right only if it keeps the rules it was given (grading.digest_problems: two to four plain
sentences, none left out or cut by the program, the busiest note and the to-do due soonest
named) and no captured words reached the prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

from commonplace.capture.inbox import parse_capture
from commonplace.digest.collect import collect
from commonplace.digest.models import DigestData, OpenTodo
from commonplace.digest.render import render_digest
from commonplace.digest.summary import (
    clean_summary,
    fitted_request,
    sent_todos,
    summary_data,
    write_summary,
)
from commonplace.digest.week import parse_week
from commonplace.digest.words import split_sentences
from commonplace.evals import grading
from commonplace.evals.fixture import capture_files, copy_vault, load_jsonl
from commonplace.evals.sheets import SheetRow
from commonplace.evals.suite import EvalError, Item, ItemResult, Suite, SuiteEnv
from commonplace.tidy import filed_note
from commonplace.tidy.models import Decision, Todo
from commonplace.tidy.validate import fallback_title
from commonplace.vault import atomic_write

WEEK = "2026-W43"
TITLES = {
    "2026-10-19 0742.md": "Chess moves to Wednesdays",
    "2026-10-19 1315.md": "Prices shown as a weather forecast",
    "2026-10-19 2104.md": "Less sugar in the plum crumble",
    "2026-10-20 0805.md": "Shed roof timber and ringing Mum",
    "2026-10-20 1248.md": "Lunch with Zoë",
    "2026-10-20 1251.md": "Switchboard launch slips to 19 Nov",
    "2026-10-20 1830.md": "Easy 6.2 km run",
    "2026-10-21 0915.md": "Physio appointment moved",
    "2026-10-21 1120.md": "Research slides for Maya",
    "2026-10-21 2237.md": "Bristol Grower garlic newsletter",
    "2026-10-22 0730.md": "Lost to Sam at chess",
    "2026-10-22 1405.md": "Book the dentist",
    "2026-10-22 1950.md": "Overheard on the bus",
    "2026-10-23 0840.md": "Switchboard launch now 26 Nov",
    "2026-10-23 1712.md": "Surprise fado night for Tobi",
    "2026-10-24 0952.md": "New parkrun PB",
    "2026-10-24 1430.md": "Shed timber delivery and Dave's visit",
    "2026-10-25 0815.md": "Long run of 12.4 km",
    "2026-10-25 1105.md": "Garlic planted",
    "2026-10-25 1920.md": "Passport renewal applied for",
}


def load(datasets: Path) -> list[Item]:
    filings = load_jsonl(datasets / "tidy.jsonl", ("capture", "links", "todos"))
    return [{"id": WEEK, "week": WEEK, "filings": filings}]


async def prepare(env: SuiteEnv) -> None:
    copy_vault(env.settings.vault, "none")
    env.info["filed"] = len(file_expected(env, env.datasets))


def file_expected(env: SuiteEnv, datasets: Path) -> list[str]:
    """Write each capture as tidying should have filed it; return the filed paths."""
    s = env.settings
    files = capture_files()
    written = []
    for row in load_jsonl(datasets / "tidy.jsonl", ("capture", "links", "todos")):
        name = str(row["capture"])
        if name not in files:
            raise EvalError(f"tidy.jsonl names {name}, which is not a capture")
        capture = parse_capture(f"{s.folder('inbox')}/{name}", files[name], s.tz)
        todos = tuple(
            Todo(str(t["text"]), date.fromisoformat(t["due"]) if t.get("due") else None)
            for t in row["todos"]
        )
        title = TITLES.get(name) or fallback_title(capture.body)
        decision = Decision(title=title, links=tuple(row["links"]), todos=todos)
        rel = f"{s.folder('filed')}/{filed_note.filed_name(capture, title)}"
        atomic_write(s.vault / rel, filed_note.render(capture, decision, s.flavor), expect=None)
        written.append(rel)
    return written


async def run_item(env: SuiteEnv, item: Item) -> ItemResult:
    s = env.settings
    week = parse_week(str(item["week"]))
    data = collect(s, week)
    messages, max_items = fitted_request(env.llm, data)  # what write_summary sends the model
    given = summary_data(data, max_items)
    prompt = "\n".join(m["content"] for m in messages)
    allowed = [c.title for c in data.captures] + [
        t.text for c in data.captures for t in c.kept_todos
    ]
    leaked = [
        name
        for name, raw in capture_files().items()
        if grading.words_leaked(parse_capture(name, raw, s.tz).body, prompt, allowed)
    ]
    summary = await write_summary(env.llm, data)
    written = datetime.combine(week.sunday, datetime.min.time().replace(hour=18), tzinfo=s.tz)
    note = render_digest(data, summary, s.flavor, written)
    (env.folder / f"digest-run-{env.run}.md").write_text(note, encoding="utf-8")
    # Every sentence the screen read (the model's first four), and what it said of each.
    stopped = dict(summary.left_out)
    sentences: list[dict[str, Any]] = []
    for text in split_sentences(clean_summary(summary.model_text) or ""):
        why = list(stopped.get(text, ()))
        sentences.append(
            {
                "text": text,
                "unsupported": why,
                "shown": not why,
                "program": grading.digest_verdict(why),
            }
        )
    problems = grading.digest_problems(
        sentences,
        trimmed=summary.trimmed,
        leaked=leaked,
        busiest=busiest(data),
        soonest=soonest(sent_todos(data, max_items)),
    )
    record = {
        "week": week.label,
        "data": given,
        "summary": summary.text,
        "model_text": summary.model_text,
        "problem": summary.problem,
        "trimmed": summary.trimmed,
        "grade": {"right": not problems, "problems": problems},
        "sentences": sentences,
        "captured_words_in_prompt": leaked,
        "note": note,
    }
    rows = tuple(
        SheetRow(
            f"s{n}",
            {"sentence": str(x["text"]), "in the note": "shown" if x["shown"] else "left out"},
            str(x["program"]),
        )
        for n, x in enumerate(sentences, start=1)
    )
    if not sentences:
        row = SheetRow("s0", {"sentence": ""}, f"unsupported (no sentences: {summary.problem})")
        return ItemResult(week.label, record, rows=(row,), error=summary.problem)
    verdict = "right" if not problems else "wrong (" + "; ".join(problems) + ")"
    shown = sum(1 for x in sentences if x["shown"])
    line = f"{verdict}: {len(sentences)} sentences, {shown} shown (the screen passed them)"
    return ItemResult(week.label, record, rows=rows, line=line)


def busiest(data: DigestData) -> list[str]:
    """The linked notes with the most of the week's captures (ties all count)."""
    most = max((len(items) for _, items in data.groups), default=0)
    return [title for title, items in data.groups if most and len(items) == most]


def soonest(todos: Sequence[OpenTodo]) -> list[str]:
    """The open to-dos the model was sent with the earliest due date (ties all count)."""
    dues = [t.due for t in todos if t.due]
    return [t.text for t in todos if dues and t.due == min(dues)]


def figures(results: Sequence[ItemResult]) -> dict[str, Any]:
    sentences = [x for r in results for x in r.record.get("sentences", [])]
    return {
        "digests": len(results),
        "no_summary": sum(1 for r in results if r.error),
        "no_sentence_shown": sum(1 for r in results if not r.record.get("summary")),
        "sentences": len(sentences),
        "supported_by_program": sum(1 for x in sentences if not x["unsupported"]),
        "right": sum(1 for r in results if (r.record.get("grade") or {}).get("right")),
        "trimmed": sum(1 for r in results if r.record.get("trimmed")),
        "captured_words_in_prompt": sum(
            len(r.record.get("captured_words_in_prompt", [])) for r in results
        ),
    }


def report(f: Mapping[str, Any]) -> list[str]:
    return [
        f"digests right (program) {f['right']:g}/{f['digests']:g} (two to four plain sentences "
        "naming the busiest note and the to-do due soonest, none left out by the screen, "
        f"none cut by the program: trimmed {f['trimmed']:g})",
        f"sentences {f['sentences']:g}; supported by the lists (program: the screen passed "
        f"them, and the note shows them) {f['supported_by_program']:g}/{f['sentences']:g}",
        f"digests without sentences {f['no_summary']:g}/{f['digests']:g} (no answer), "
        f"{f['no_sentence_shown']:g}/{f['digests']:g} (none shown); captures whose "
        f"words reached the prompt {f['captured_words_in_prompt']:g} (must be 0)",
    ]


SUITE = Suite(
    name="digest",
    about="the week's digest sentences: each one supported by the lists, or not",
    needs_chat=True,
    needs_embed=False,
    load=load,
    prepare=prepare,
    run_item=run_item,
    figures=figures,
    report=report,
    sheet_columns=("sentence", "in the note"),
    how_to_grade=(
        "Each row is one sentence the model wrote above the digest's lists (its first four). "
        "`in the note` says whether the note shows it or the program's screen left it out. "
        "Open digest-run-N.md (N = the row's run) next to this sheet and mark every sentence, "
        "shown or not, `supported` (or `s`) if the lists back every claim in it, "
        "`unsupported` (`u`) if any part is invented, wrong or says an open to-do was done."
    ),
)
