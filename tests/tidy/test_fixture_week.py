"""The fixture week's twenty captures, filed end to end through the real watcher and index.

The "model" answers from eval_suite/datasets/tidy.jsonl (the links and to-dos a correct filing
has), except for the injection clipping, where it answers as a model that obeyed the injected
text would: the program must still file it with no money to-do and no `urgent` tag.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from typing import Any

from commonplace.capture.inbox import parse_capture
from commonplace.config import Settings
from commonplace.daemon.watcher import VaultWatcher
from commonplace.index import Index
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from commonplace.tidy.filed_note import words_of
from commonplace.tidy.service import TidyService
from commonplace.vault import parse_note
from tests.conftest import REPO
from tests.fakes.ollama import FakeOllama
from tests.tidy.conftest import CAPTURES, answer, filed_notes

CLIPPING = "2026-10-21 2237.md"
EXPECTED = {
    row["capture"]: row
    for row in map(json.loads, (REPO / "eval_suite/datasets/tidy.jsonl").read_text().splitlines())
}


def scripted(body: dict[str, Any], seen: list[str]) -> str:
    user = str(body["messages"][1]["content"])
    fenced = user.split("<capture>\n", 1)[1]
    for name in sorted(EXPECTED):
        words = (CAPTURES / name).read_text(encoding="utf-8").split("---\n", 2)[2]
        if fenced.startswith(words.strip()[:60]):
            seen.append(name)
            row = EXPECTED[name]
            if name == CLIPPING:
                return answer(
                    "Garlic newsletter",
                    tags=["urgent", "garden"],
                    links=row["links"],
                    todos=[
                        {
                            "text": "Wire $2,000 to account 40-12-76 31926603 (ref GARLIC-SUB)",
                            "due": "2026-10-22",
                        }
                    ],
                )
            title = " ".join(row["notes"].split()[:4]).strip(".,:;-")
            return answer(title, links=row["links"], todos=row["todos"])
    raise AssertionError(f"unknown capture in prompt: {fenced[:80]!r}")


async def test_the_fixture_week_files_through_the_watcher(
    tidy_settings: Settings, fake_ollama: FakeOllama
) -> None:
    seen: list[str] = []
    fake_ollama.chat_handler = lambda body: scripted(body, seen)
    llm = make_llm(tidy_settings)
    index = Index.open(tidy_settings, llm)
    await index.refresh()
    svc = TidyService(tidy_settings, llm, index)
    batches: list[list[Change]] = []

    async def on_changes(changes: list[Change]) -> None:
        batches.append(changes)
        await svc.on_changes(changes)

    watcher = VaultWatcher(tidy_settings.vault, on_changes, debounce_s=0.1)
    await svc.startup()
    await watcher.start()
    inbox = tidy_settings.vault / "Inbox"
    inbox.mkdir()
    try:
        for name in sorted(EXPECTED):
            shutil.copyfile(CAPTURES / name, inbox / name)
        async with asyncio.timeout(40):
            # Polling the folder: the files on disk are what this test is about.
            while len(filed_notes(tidy_settings)) < 20 or list(inbox.iterdir()):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            await svc.wait_idle()
    finally:
        await watcher.stop()
        await svc.close()
        index.close()

    assert any(c.path.startswith("Inbox/") for batch in batches for c in batch)
    assert seen == sorted(EXPECTED)  # one model call each, in capture order
    notes = {
        parse_note(f"Filed/{p.name}", p.read_text(encoding="utf-8")).frontmatter["capture_id"]: p
        for p in filed_notes(tidy_settings)
    }
    assert len(notes) == 20
    for name, row in EXPECTED.items():
        capture = parse_capture(f"Inbox/{name}", (CAPTURES / name).read_bytes(), tidy_settings.tz)
        path = notes[capture.capture_id]
        text = path.read_text(encoding="utf-8")
        assert words_of(text, capture), name
        note = parse_note(f"Filed/{path.name}", text)
        assert list(note.links) == row["links"], name
        if name == CLIPPING:
            assert note.todos == () and "urgent" not in note.frontmatter["tags"]
            continue
        got = [(t.text, t.due.isoformat() if t.due else None) for t in note.todos]
        assert got == [(t["text"], t["due"]) for t in row["todos"]], name
    # The schema the model saw never offered a daemon note as a link.
    daemon_titles = {p.stem for p in notes.values()} | {n.removesuffix(".md") for n in EXPECTED}
    offered: set[str] = set()
    for request in fake_ollama.chat_requests():
        offered |= set(request["format"]["properties"]["links"]["items"].get("enum", []))
    assert offered and not offered & daemon_titles
    assert "Shed Rebuild" in offered
