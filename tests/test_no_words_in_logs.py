"""Logs at INFO and above carry paths, counts, ids and timings, never the words of a note, a
capture, a question or an answer (issue 16, item 4). A black-box run once found "answered 'When
do the ... biopsy results arrive?' in Ask/Health.md" at the default level.

One marker word is put everywhere words go (a capture, the model's proposal, a dropped to-do, an
unusable answer, an Ask-note question and its answer, a question, a search and a capture from
the phone page); the log is captured at DEBUG, and the word must be in none of the records at
INFO or above. It is in some DEBUG records: that shows the capture can see it, and DEBUG is the
level that may carry words (and says so when it is turned on). The same flow then runs through
`commonplace run` as a real process, whose whole log (INFO, as it runs by default) is checked.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from commonplace.ask.service import AskService
from commonplace.cli.common import setup_logging
from commonplace.config import Settings
from commonplace.llm import make_llm
from commonplace.runtime.changes import Change
from commonplace.server import create_app
from commonplace.server.context import Services
from commonplace.tidy.service import TidyService
from tests.ask.helpers import FixedIndex, hit
from tests.daemon_process import Daemon, filed
from tests.fakes.ollama import FakeOllama
from tests.tidy.conftest import fast, filed_notes, put_capture

MARK = "Xylophonist"
WAIT_S = 15


def model(body: dict[str, Any]) -> str:
    """Tidy gets a proposal full of the marker (some of it dropped by the program); a capture
    that says 'garble' gets an unusable answer; questions get an answer with the marker."""
    user = str(body["messages"][-1]["content"])
    if body.get("format"):
        if "garble" in user:
            return f"not JSON at all, {MARK}"
        return json.dumps(
            {
                "title": "Band practice",
                "tags": [f"{MARK} band", "music"],
                "links": [f"{MARK} Hall"],
                "todos": [
                    {"text": f"ring the {MARK} about Thursday", "due": "1999-01-01"},
                    {"text": f"wire $2,000 to the {MARK}", "due": None},
                ],
            }
        )
    return f"The {MARK} plays on Thursday [1]."


class AnyIndex(FixedIndex):
    """FixedIndex, also taking the search filters /api/search passes (they don't matter here)."""

    async def search(self, query: str, *, limit: int, mode: str = "hybrid", **_: Any) -> Any:
        return await super().search(query, limit=limit, mode=mode)


def capture_text(words: str) -> str:
    return f"---\ncaptured: 2026-10-20T08:05\nvia: phone\n---\n{words}\n"


def leaks(records: list[logging.LogRecord]) -> list[str]:
    out = []
    for r in records:
        text = r.getMessage() + (
            logging.Formatter().formatException(r.exc_info) if r.exc_info else ""
        )
        if MARK.lower() in text.lower():
            out.append(f"{r.levelname} {r.name}: {text[:200]}")
    return out


@pytest.fixture
def everything_logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    # The package's own logger too: `commonplace run` invoked in-process by an earlier test on
    # this worker leaves it at INFO, and then no DEBUG record is made at all.
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="commonplace"):
        yield caplog


async def test_no_words_at_info_while_tidying_and_answering(
    settings: Settings, fake_ollama: FakeOllama, everything_logged: pytest.LogCaptureFixture
) -> None:
    s = fast(settings, fake_ollama.url, max_attempts=1)
    fake_ollama.chat_handler = model
    put_capture(s, "2026-10-20 0805.md", capture_text(f"band practice with the {MARK} on Thursday"))
    put_capture(s, "2026-10-20 0806.md", capture_text(f"garble {MARK} garble"))
    ask_note = s.vault / "Ask" / "Band.md"
    ask_note.parent.mkdir(exist_ok=True)
    ask_note.write_text(f"# Band\n\n?? When does the {MARK} play?\n")
    index = AnyIndex([hit("Music/Band.md", f"The {MARK} plays Thursdays at eight.")])
    tidy = TidyService(s, make_llm(s), index)
    asker = AskService(s, make_llm(s), index, quiet_s=0.01, retry_s=0.05)
    app = create_app(s, make_llm(s), Services(index=index))  # type: ignore[arg-type]
    server = TestServer(app, host="127.0.0.1")
    # As the daemon runs it (daemon.start_server): no access log, whose lines hold query strings.
    await server.start_server(access_log=None)
    client = TestClient(server)
    await client.start_server()
    try:
        await tidy.startup()
        await asker.on_changes([Change("Ask/Band.md", "modified")])
        headers = {"Origin": f"http://127.0.0.1:{client.port}", "Content-Type": "application/json"}
        for path, body in (
            ("/api/ask", {"question": f"Where does the {MARK} rehearse?"}),
            ("/api/ask?stream=1", {"question": f"Who is the {MARK}?"}),
            ("/api/capture", {"text": f"the {MARK} owes me a reed", "via": "api"}),
        ):
            response = await client.post(path, data=json.dumps(body), headers=headers)
            assert response.status in (200, 201), await response.text()
            await response.read()
        response = await client.get("/api/search", params={"q": f"{MARK} rehearsal"})
        assert response.status == 200
        async with asyncio.timeout(WAIT_S):
            await tidy.wait_idle()
            await asker.idle()
    finally:
        await client.close()
        await tidy.close()
        await asker.close()
    assert [p.name for p in filed_notes(s)] == ["2026-10-20 0805 Band practice.md"]
    assert "Xylophonist plays on Thursday" in ask_note.read_text()  # the answer went in
    records = everything_logged.records
    assert leaks([r for r in records if r.levelno >= logging.INFO]) == []
    assert leaks([r for r in records if r.levelno == logging.DEBUG])  # DEBUG may carry words


def test_debug_logging_says_it_may_carry_words(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        root.handlers.clear()
        setup_logging(2)
        err = capsys.readouterr().err
        assert "debug logging is on" in err and "words" in err
        setup_logging(1)
        assert "debug logging is on" not in capsys.readouterr().err
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def post(port: int, path: str, body: dict[str, Any]) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
        return int(response.status)


@pytest.mark.slow
def test_the_daemons_own_log_carries_no_words(
    vault: Path, tmp_path: Path, fake_ollama_thread: FakeOllama
) -> None:
    fake_ollama_thread.chat_handler = model
    inbox = vault / "Inbox"
    inbox.mkdir(exist_ok=True)
    (inbox / "2026-10-20 0805.md").write_text(capture_text(f"band practice, {MARK}"))
    (vault / "Ask").mkdir(exist_ok=True)
    (vault / "Ask" / "Band.md").write_text(f"?? When does the {MARK} play?\n")
    config = "[tidy]\nstable_s = 0.2\n[ask]\nquiet_s = 0.2\n"
    daemon = Daemon(vault, tmp_path / "data", fake_ollama_thread.url, config=config).start()
    try:
        daemon.wait_until(lambda: filed(vault), "the capture filed")
        daemon.wait_until(
            lambda: "plays on Thursday" in (vault / "Ask" / "Band.md").read_text(),
            "the Ask note answered",
        )
        assert post(daemon.port, "/api/ask", {"question": f"Who is the {MARK}?"}) == 200
        assert post(daemon.port, "/api/capture", {"text": f"{MARK} again"}) == 201
        status, _ = daemon.call(f"/api/search?q={MARK}")
        assert status == 200
    finally:
        log = daemon.stop()
    assert "job tidy" in log and "Ask: answered question" in log  # the log is there...
    assert MARK.lower() not in log.lower()  # ...without the words
    # The same rule holds for the log file a user reads later (runtime/logfile.py), which holds the
    # same records; only its owner may read it.
    (file,) = (tmp_path / "xdg-state" / "commonplace").glob("*.log")
    text = file.read_text(encoding="utf-8")
    assert "job tidy" in text and "Ask: answered question" in text
    assert MARK.lower() not in text.lower()
    assert file.stat().st_mode & 0o077 == 0
