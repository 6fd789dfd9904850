"""Every embedding model gets the text it was trained on: asserted on what the fake Ollama
received. Unknown models are sized from /api/show; a profile change re-embeds once."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from commonplace.config import Settings
from commonplace.index.chunking import chunk_budget
from commonplace.llm import profiles
from commonplace.llm.profiles import EmbedProfile, known_profile
from commonplace.vault import estimate_tokens
from tests.fakes.ollama import FakeOllama
from tests.index.conftest import OpenIndex, write
from tests.models import with_model

QWEN_TASK = "Given a web search query, retrieve relevant passages that answer the query"


def only_note(settings: Settings, model: str, fake: FakeOllama, text: str) -> Settings:
    """The vault reduced to one note, and `model` as the embedding model (pulled in the fake)."""
    shutil.rmtree(settings.vault)
    write(settings.vault, "Notes/Plan.md", text)
    fake.add_model(model if ":" in model else f"{model}:latest")
    return with_model(settings, embed_model=model)


def sent(fake: FakeOllama) -> list[str]:
    return [t for body in fake.embed_requests() for t in body["input"]]


@pytest.mark.parametrize(
    ("model", "document", "query"),
    [
        (
            "nomic-embed-text",
            "search_document: Plan > Later\n\nSecond part.",
            "search_query: kestrels",
        ),
        (
            "mxbai-embed-large",
            "Plan > Later\n\nSecond part.",
            "Represent this sentence for searching relevant passages: kestrels",
        ),
        (
            "snowflake-arctic-embed2:568m",
            "Plan > Later\n\nSecond part.",
            "query: kestrels",
        ),
        (
            "embeddinggemma",
            "title: Plan > Later | text: Second part.",
            "task: search result | query: kestrels",
        ),
        (
            "qwen3-embedding:0.6b",
            "Plan > Later\n\nSecond part.",
            f"Instruct: {QWEN_TASK}\nQuery:kestrels",
        ),
        ("all-minilm", "Plan > Later\n\nSecond part.", "kestrels"),
    ],
)
async def test_each_model_is_sent_its_own_document_and_query_format(
    open_index: OpenIndex,
    isettings: Settings,
    fake_ollama: FakeOllama,
    model: str,
    document: str,
    query: str,
) -> None:
    text = "# Plan\n\nFirst part about kestrels.\n\n# Later\n\nSecond part.\n"
    settings = only_note(isettings, model, fake_ollama, text)
    index = open_index(settings)
    await index.refresh()
    assert document in sent(fake_ollama)
    assert all(body["model"] == model for body in fake_ollama.embed_requests())
    fake_ollama.requests.clear()
    response = await index.search("kestrels", mode="vector")
    assert sent(fake_ollama) == [query]
    assert response.results[0].text == "First part about kestrels."  # stored text: no prefix


async def test_an_unknown_model_is_sized_by_ollama_and_the_choice_is_logged(
    open_index: OpenIndex,
    isettings: Settings,
    fake_ollama: FakeOllama,
    caplog: pytest.LogCaptureFixture,
) -> None:
    long = " ".join(f"word{i}" for i in range(400))
    settings = only_note(isettings, "house-embed", fake_ollama, f"# Long\n\n{long}\n")
    fake_ollama.context_length["house-embed:latest"] = 96
    caplog.set_level("INFO")
    index = open_index(settings)
    stats = await index.refresh()
    assert "house-embed is not in the profile table" in caplog.text
    assert "context 96 tokens (from the model server)" in caplog.text
    texts = sent(fake_ollama)
    assert stats.chunks == len(texts) > 4  # cut to fit 96 tokens, not chunk_tokens (400)
    assert all(estimate_tokens(t) <= 96 for t in texts)
    assert all(t.startswith("Plan > Long\n\n") for t in texts)  # no prefix for an unknown model
    show = [r for r in fake_ollama.requests if r.path == "/api/show"]
    assert len(show) == 1  # asked once
    fake_ollama.requests.clear()
    await index.search("word7", mode="vector")
    assert sent(fake_ollama) == ["word7"]


@pytest.mark.parametrize("model", ["e5-embed", "all-minilm"])
async def test_prefixes_from_the_config_are_what_the_model_is_sent(
    open_index: OpenIndex,
    isettings: Settings,
    fake_ollama: FakeOllama,
    caplog: pytest.LogCaptureFixture,
    model: str,
) -> None:
    """An E5 model pulled under a community name wants "query: " and "passage: "; the owner
    says so in [ollama], and that replaces the table's (none, for all-minilm)."""
    text = "# Plan\n\nFirst part about kestrels.\n\n# Later\n\nSecond part.\n"
    settings = only_note(isettings, model, fake_ollama, text)
    settings = with_model(settings, embed_query_prefix="query: ", embed_document_prefix="passage: ")
    caplog.set_level("INFO")
    index = open_index(settings)
    await index.refresh()
    assert "passage: Plan > Later\n\nSecond part." in sent(fake_ollama)
    assert all(t.startswith("passage: ") for t in sent(fake_ollama))
    if model == "e5-embed":
        assert "query prefix 'query: ' and document prefix 'passage: ' (from [model]" in (
            caplog.text
        )
    fake_ollama.requests.clear()
    response = await index.search("kestrels", mode="vector")
    assert sent(fake_ollama) == ["query: kestrels"]
    assert response.results[0].text == "First part about kestrels."


def test_configured_prefixes_change_the_signature_so_everything_is_embedded_again() -> None:
    table = known_profile("all-minilm")
    assert table is not None
    assert profiles.with_prefixes(table, "", "") == table
    e5 = profiles.with_prefixes(table, "query: ", "passage: ")
    assert e5.signature != table.signature and e5.context_tokens == 256
    assert e5.query("q") == "query: q" and e5.document("T", "x") == "passage: T\n\nx"


async def test_an_unknown_model_is_cut_again_once_ollama_can_describe_it(
    open_index: OpenIndex, isettings: Settings, fake_ollama: FakeOllama, dead_ollama_url: str
) -> None:
    long = " ".join(f"word{i}" for i in range(400))
    settings = only_note(isettings, "house-embed", fake_ollama, f"# Long\n\n{long}\n")
    fake_ollama.context_length["house-embed:latest"] = 96
    down = with_model(settings, host=dead_ollama_url)
    index = open_index(down)
    first = await index.refresh()  # keywords only, chunks sized by chunk_tokens
    assert first.vectors_pending == 1
    index.close()
    second = await open_index(settings).refresh()
    assert second.chunks > first.chunks  # the 96-token context cuts smaller chunks
    assert second.embedded == second.chunks and second.vectors_pending == 0


async def test_a_profile_change_reembeds_everything_once(
    open_index: OpenIndex,
    isettings: Settings,
    fake_ollama: FakeOllama,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    index = open_index()
    first = await index.refresh()
    index.close()
    changed = dataclasses.replace(profiles.KNOWN["nomic-embed-text"], document_prefix="passage: ")
    monkeypatch.setitem(profiles.KNOWN, "nomic-embed-text", changed)
    caplog.set_level("INFO")
    fake_ollama.requests.clear()
    again = open_index()
    stats = await again.refresh()
    assert "every note is read again once" in caplog.text
    assert stats.embedded == first.chunks and stats.chunks == first.chunks
    assert all(t.startswith("passage: ") for t in sent(fake_ollama))
    assert (await again.refresh()).embedded == 0


def test_the_model_prefix_counts_against_the_chunk_budget() -> None:
    plain = EmbedProfile("m", context_tokens=512)
    gemma = known_profile("embeddinggemma")
    assert gemma is not None
    assert chunk_budget(dataclasses.replace(gemma, context_tokens=512), 400) < chunk_budget(
        plain, 400
    )
    assert known_profile("library/nomic-embed-text:v1.5") is not None
    assert known_profile("my-own-model") is None


def test_every_known_model_cites_its_card() -> None:
    source = Path(profiles.__file__).read_text(encoding="utf-8")
    for name in profiles.KNOWN:
        entry = source.index(f'"{name}": _Known(')
        comment = source.rfind("\n\n", 0, entry)
        assert "https://" in source[comment:entry], f"{name} has no source in a comment"
