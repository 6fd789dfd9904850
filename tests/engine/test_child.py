"""`python -m commonplace.engine.child`: llama.cpp's server on loopback behind a key, one JSON
line when ready, gone when its stdin ends."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from commonplace.engine import hardware
from tests.engine.conftest import KEY, THREADS, Child, child_config, gguf_bytes, start_child

pytestmark = pytest.mark.xdist_group("engine")

AUTH = {"Authorization": f"Bearer {KEY}"}
LONG_RULES = " ".join(
    f"Rule {i}: tags are simple lowercase words, and links name notes that exist."
    for i in range(30)
)


def post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url, json=body, headers=AUTH if headers is None else headers, timeout=120)


def chat(child: Child, system: str, user: str) -> dict[str, Any]:
    response = post(
        child.ready["models"]["chat"]["url"] + "/chat/completions",
        {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": 4,
            "temperature": 0,
        },
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_the_child_says_what_it_runs_in_one_line(engine_child: Child) -> None:
    ready = engine_child.ready
    assert ready["device"] == "CPU"  # the CPU wheel: no GPU in this build
    assert ready["threads"] == THREADS
    chat_facts, embed_facts = ready["models"]["chat"], ready["models"]["embed"]
    assert chat_facts["alias"] == "gemma-3-270m-q4_k_m"  # the file's stem, not its full path
    assert chat_facts["n_ctx"] == 1024  # [builtin] context, as the plan said
    assert chat_facts["n_ctx_train"] == 32768
    assert (embed_facts["alias"], embed_facts["n_embd"]) == ("all-minilm-l6-v2-f16", 384)
    assert embed_facts["n_ctx"] == embed_facts["n_ctx_train"] == 512  # MiniLM's own
    for facts in (chat_facts, embed_facts):
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", facts["url"])
    assert chat_facts["url"] != embed_facts["url"]


def test_the_child_answers_health_chat_and_embeddings_with_its_key(engine_child: Child) -> None:
    chat_url = engine_child.ready["models"]["chat"]["url"]
    embed_url = engine_child.ready["models"]["embed"]["url"]
    assert httpx.get(chat_url.removesuffix("/v1") + "/health", timeout=30).status_code == 200
    answer = chat(engine_child, "You are brief.", "Say hello.")
    assert answer["choices"][0]["message"]["role"] == "assistant"
    assert answer["usage"]["completion_tokens"] >= 1
    texts = ["The cat sits on the mat.", "A cat is sitting on a rug.", "File the tax return."]
    vectors = post(embed_url + "/embeddings", {"input": texts})
    assert vectors.status_code == 200, vectors.text
    cat, rug, tax = (d["embedding"] for d in vectors.json()["data"])
    assert len(cat) == 384
    assert cosine(cat, rug) > 0.5 > cosine(cat, tax)  # by meaning (measured: 0.77 and 0.05)


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-the-key"}])
def test_a_request_without_the_key_is_refused(engine_child: Child, headers: dict[str, str]) -> None:
    for role, path, body in (
        ("chat", "/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}),
        ("embed", "/embeddings", {"input": ["hi"]}),
    ):
        response = post(engine_child.ready["models"][role]["url"] + path, body, headers)
        assert response.status_code == 401, (role, response.text)
    models = httpx.get(engine_child.ready["models"]["chat"]["url"] + "/models", headers=headers)
    assert models.status_code == 401


def test_the_second_prompt_with_the_same_beginning_reuses_the_first(engine_child: Child) -> None:
    """One slot and cache_prompt: the shared instructions are read once. The server's own
    timings are compared (not the wall clock), so a busy machine cannot change the outcome."""
    first = chat(engine_child, LONG_RULES, "Capture: buy pears on the way home.")["timings"]
    second = chat(engine_child, LONG_RULES, "Capture: call Priya about the report.")["timings"]
    assert first["prompt_n"] > 400
    assert second["cache_n"] >= first["prompt_n"] - 40  # all of the rules, from the cache
    assert second["prompt_n"] < 40  # only the new capture was read
    assert second["prompt_ms"] < first["prompt_ms"] / 3


def test_the_cpu_check_asks_for_what_the_build_was_made_for(engine_child: Child) -> None:
    """hardware.X86_NEEDS must be the x86 features llama.cpp's build says it uses: a wheel
    built for more (AVX-512) would die with SIGILL on processors the check lets through."""
    info = engine_child.ready["system_info"]
    used = {name.lower() for name, on in re.findall(r"(\w+) = (\d)", info) if on == "1"}
    x86 = {"avx", "avx2", "avx_vnni", "fma", "f16c", "bmi2", "avx512", "avx512_vbmi", "amx_int8"}
    if not hardware.is_x86():
        pytest.skip("the x86 features of the build are read on an x86 computer")
    assert used & x86 == set(hardware.X86_NEEDS)


def test_the_child_exits_when_its_stdin_ends(gguf: Callable[[str], Path]) -> None:
    child = start_child(child_config({"chat": gguf("gemma")}, context=512))
    health = child.ready["models"]["chat"]["url"].removesuffix("/v1") + "/health"
    assert httpx.get(health, timeout=30).status_code == 200
    started = time.monotonic()
    assert child.stop() == 0
    assert time.monotonic() - started < 10
    with pytest.raises(httpx.ConnectError):
        httpx.get(health, timeout=5)


def test_gpu_on_without_a_gpu_is_refused_in_words(gguf: Callable[[str], Path]) -> None:
    child = start_child(child_config({"chat": gguf("gemma")}, gpu="on"))
    assert child.answer["error"] == "no_gpu"
    assert "has no GPU" in child.answer["message"] and "gpu = 'auto'" in child.answer["message"]
    assert child.proc.wait(timeout=30) == 1


def test_a_file_llama_cpp_cannot_load_is_refused_in_words(tmp_path: Path) -> None:
    """A GGUF header with an architecture llama.cpp does not know, and no tensors."""
    path = tmp_path / "odd.gguf"
    path.write_bytes(gguf_bytes({"general.architecture": "no-such-arch", "general.name": "Odd"}))
    child = start_child(child_config({"chat": path}))
    assert child.answer["error"] == "load_failed"
    assert child.answer["message"].startswith(f"llama.cpp could not load Odd ({path})")
    assert child.proc.wait(timeout=30) == 1


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city's name"}},
            "required": ["city"],
        },
    },
}


def test_tools_reach_the_model_through_its_own_chat_template(gguf: Callable[[str], Path]) -> None:
    """use_jinja: the model's own template (Qwen's, with its <tools> block and <tool_call>
    syntax) renders the tools, not a generic one that would drop them. Whether the model then
    answers in that syntax is the model's: Qwen2.5-Coder 1.5B writes the call as a JSON block
    in its text (measured, temperature 0), which llama.cpp leaves as content and the backend
    must recognise; so the test asks only that the call it proposes names the tool."""
    child = start_child(child_config({"chat": gguf("qwen")}, context=2048))
    try:
        facts = child.ready["models"]["chat"]
        assert facts["tools"] is True  # llama.cpp's chat_template_caps for this template
        messages = [{"role": "user", "content": "What is the weather in Lisbon?"}]
        root = facts["url"].removesuffix("/v1")
        prompt = post(root + "/apply-template", {"messages": messages, "tools": [WEATHER]})
        assert prompt.status_code == 200, prompt.text
        rendered = prompt.json()["prompt"]
        assert "<tools>" in rendered and json.dumps(WEATHER) in rendered
        assert "<tool_call>" in rendered  # the template tells the model its call syntax
        body = {"messages": messages, "tools": [WEATHER], "temperature": 0, "max_tokens": 16}
        response = post(facts["url"] + "/chat/completions", body)
        assert response.status_code == 200, response.text
        message = response.json()["choices"][0]["message"]
        assert "get_weather" in json.dumps(message.get("tool_calls") or message.get("content"))
    finally:
        child.stop()
