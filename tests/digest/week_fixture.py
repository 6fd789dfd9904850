"""The fixture week (19-25 Oct 2026) as filed notes, built here from the raw captures and the
expected links and to-dos in eval_suite/datasets/tidy.jsonl, in the layout tidy writes. The
digest tests do not run tidy: they need known filed notes, not a model's guesses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from commonplace.config import Settings
from commonplace.vault.markdown import split_frontmatter
from tests.conftest import FIXTURE, REPO

CAPTURES = FIXTURE / "captures"
DATASET = REPO / "eval_suite" / "datasets" / "tidy.jsonl"

# Titles a tidy run might give; chosen here, so the tests know them.
TITLES = {
    "2026-10-19 0742": "Chess night moves to Wednesdays",
    "2026-10-19 1315": "Forecast strip idea",
    "2026-10-19 2104": "Crumble tweaks",
    "2026-10-20 0805": "Shed roof timber",
    "2026-10-20 1248": "Lunch with Zoë",
    "2026-10-20 1251": "Launch slips again",
    "2026-10-20 1830": "Easy run on the downs",
    "2026-10-21 0915": "Physio moved",
    "2026-10-21 1120": "Slides for Maya",
    "2026-10-21 2237": "Garlic newsletter",
    "2026-10-22 0730": "Lost to Sam",
    "2026-10-22 1405": "Book the dentist",
    "2026-10-22 1950": "Pigeon quote",
    "2026-10-23 0840": "Launch date fixed",
    "2026-10-23 1712": "Fado surprise",
    "2026-10-24 0952": "Parkrun PB",
    "2026-10-24 1430": "Shed delivery",
    "2026-10-25 0815": "Long run",
    "2026-10-25 1105": "Garlic planted",
    "2026-10-25 1920": "Passport renewed",
}


@dataclass(frozen=True)
class Filed:
    stamp: str  # 'YYYY-MM-DD HHMM'
    title: str
    path: str  # vault-relative
    words: str  # the capture's words, exactly
    links: tuple[str, ...]
    todos: tuple[tuple[str, date | None], ...]


def captures() -> dict[str, tuple[dict[str, str], str]]:
    """stamp -> (frontmatter fields, words) for the 20 raw captures."""
    out = {}
    for path in sorted(CAPTURES.glob("*.md")):
        fm, body, _ = split_frontmatter(path.read_text(encoding="utf-8"))
        fields = dict(line.split(": ", 1) for line in (fm or "").splitlines() if ": " in line)
        out[path.stem] = (fields, body)
    return out


def expected() -> dict[str, dict[str, object]]:
    rows = [json.loads(line) for line in DATASET.read_text(encoding="utf-8").splitlines() if line]
    return {row["capture"].removesuffix(".md"): row for row in rows}


def filed_text(
    fields: dict[str, str],
    words: str,
    links: tuple[str, ...],
    todos: tuple[tuple[str, date | None], ...],
    flavor: str,
) -> str:
    """A filed note in tidy's layout: properties, the words exactly, Related, to-dos."""
    if flavor == "logseq":
        props = [f"captured:: {fields['captured']}", f"via:: {fields['via']}"]
        if links:
            props.append("related:: " + ", ".join(f"[[{t}]]" for t in links))
        blocks = ["- Related: " + ", ".join(f"[[{t}]]" for t in links)] if links else []
        for text, due in todos:
            deadline = f"\n  DEADLINE: <{due.isoformat()} {due:%a}>" if due else ""
            blocks.append(f"- TODO {text}{deadline}")
        end = ("\n" + "\n".join(blocks) + "\n") if blocks else ""
        return "\n".join(props) + "\n\n" + words.rstrip("\n") + "\n" + end
    related = "".join(f'\n  - "[[{t}]]"' for t in links) or " []"
    head = (
        f"---\ncaptured: {fields['captured']}\nvia: {fields['via']}\ntags: []\n"
        f"related:{related}\ncapture_id: test\n---\n"
    )
    tail = []
    if links:
        tail.append("Related: " + ", ".join(f"[[{t}]]" for t in links))
    if todos:
        tail.append(
            "\n".join(f"- [ ] {t}" + (f" (due {d.isoformat()})" if d else "") for t, d in todos)
        )
    end = ("\n" + "\n\n".join(tail) + "\n") if tail else ""
    return head + words.rstrip("\n") + "\n" + end


def file_week(settings: Settings, *, skip: tuple[str, ...] = ()) -> list[Filed]:
    """Write the week's 20 filed notes into the settings' vault and return what was written."""
    rows = expected()
    folder = settings.vault / settings.folder("filed")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stamp, (fields, words) in captures().items():
        if stamp in skip:
            continue
        row = rows[f"{stamp}"]
        links = tuple(str(t) for t in row["links"])  # type: ignore[attr-defined]
        todos = tuple(
            (str(t["text"]), date.fromisoformat(t["due"]) if t["due"] else None)
            for t in row["todos"]  # type: ignore[attr-defined]
        )
        title = TITLES[stamp]
        path = folder / f"{stamp} {title}.md"
        path.write_text(filed_text(fields, words, links, todos, settings.flavor), encoding="utf-8")
        rel = path.relative_to(settings.vault).as_posix()
        written.append(Filed(stamp, title, rel, words, links, todos))
    return written


def write_note(vault: Path, rel: str, text: str) -> None:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
