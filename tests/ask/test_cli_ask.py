"""`commonplace ask` end to end on vault_fixture/: the real index (LanceDB + Tantivy), the real
ollama client, the fake Ollama answering from the passages it is sent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from tests.ask.helpers import cite_passage_with, passages_in
from tests.fakes.ollama import FakeOllama


@pytest.fixture
def run_ask(vault: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("COMMONPLACE_VAULT", str(vault))
    monkeypatch.setenv("COMMONPLACE_TIMEZONE", "Europe/London")

    def run(*args: str) -> Any:
        result = CliRunner().invoke(cli, ["ask", *args], catch_exceptions=False)
        return result

    return run


def test_human_output_answer_then_sources_then_checks(
    run_ask: Any, fake_ollama_thread: FakeOllama
) -> None:
    def model(request: dict[str, Any]) -> str:
        return (
            cite_passage_with("9 February 2027", "It expires on 9 February 2027")(request)[:-1]
            + " [42]."
        )

    fake_ollama_thread.chat_handler = model
    result = run_ask("When", "does my passport expire?")
    assert result.exit_code == 0, result.output
    out = result.output
    answer_at = out.index("It expires on 9 February 2027 [")
    sources_at = out.index("Sources:")
    checks_at = out.index("Checks:")
    assert answer_at < sources_at < checks_at
    assert re.search(
        r"\[\d+\] Passport › Key dates \(Travel/Passport.md, 2026-09-14\)\n",
        out[sources_at:checks_at],
    ), out  # the heading as search shows it, not "Passport › Passport > Key dates"
    assert "[42] matches no passage" in out[checks_at:]


def test_json_output_and_dated_passages(run_ask: Any, fake_ollama_thread: FakeOllama) -> None:
    fake_ollama_thread.chat_handler = cite_passage_with("9 February 2027", "9 February 2027")
    result = run_ask("When does my passport expire?", "--json", "--today", "2026-10-27")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["refused"] is False
    assert data["answer"].startswith("9 February 2027 [")
    (source,) = data["sources"]
    assert set(source) >= {"n", "path", "title", "heading", "text"}
    assert source["path"] == "Travel/Passport.md"
    assert "9 February 2027" in source["text"]
    assert data["findings"] == []
    (request,) = fake_ollama_thread.chat_requests()
    seen = passages_in(request)
    assert ("Passport", "Monday 14 September 2026") in [(note, day) for _, note, day, _ in seen]
    assert all(day != "unknown" for _, _, day, _ in seen)
    assert "Today is Tuesday 27 October 2026" in request["messages"][1]["content"]


def test_refusal_variation_has_no_sources(run_ask: Any, fake_ollama_thread: FakeOllama) -> None:
    fake_ollama_thread.enqueue_chat("Sorry — I can’t find that in your notes.")
    result = run_ask("What is my blood type?", "--json")
    data = json.loads(result.output)
    assert data["refused"] is True
    assert data["answer"] == "I can't find that in your notes."
    assert data["sources"] == []


def test_ollama_down_is_one_clear_line(
    run_ask: Any, dead_ollama_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "fast.toml"
    config.write_text("[ollama]\nretries = 0\n")
    monkeypatch.setenv("COMMONPLACE_CONFIG", str(config))
    monkeypatch.setenv("OLLAMA_HOST", dead_ollama_url)
    result = CliRunner().invoke(cli, ["ask", "When does my passport expire?"])
    assert result.exit_code == 1
    assert "Ollama is not answering" in result.output
    assert "Traceback" not in result.output
