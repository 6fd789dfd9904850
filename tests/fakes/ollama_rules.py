"""Ollama's request rules, as plain functions the fake server applies.

Each rule is read from Ollama's Go source (ollama/ollama at fb30760, August 2026), with its
status code and error text, so that a test fails here where a real Ollama would refuse:

- `api/types.go`: `Duration.UnmarshalJSON` (keep_alive: a number of seconds, or a Go duration
  string for `time.ParseDuration`), `ThinkValue.UnmarshalJSON` (true, false, "high", "medium",
  "low", "max"), `ToolCallFunctionArguments` (always a JSON object).
- `server/routes.go` `ChatHandler`: unknown model 404 `model 'x' not found`; a model without the
  thinking capability refuses `think: true` with 400 `"x" does not support thinking`, a thinking
  model thinks when `think` is unset; a model without completion answers 400 `"x" does not
  support chat`; tools need the tools capability (`CheckCapabilities`, server/images.go); tool
  calls reach the reply only when the request had `tools` (`writeChatResponse`); an error before
  the first streamed chunk is a real HTTP status with a JSON body (`streamResponse`).
- `server/prompt.go` `chatPrompt`: older messages are dropped until the prompt fits `num_ctx`
  (system messages and the last message always stay); `llm/llama_server.go`
  `completionPromptForRequest`: a prompt still too long is cut (context shift: the first
  `num_keep` tokens and the newest ones are kept) or, with `shift: false`, refused with 400;
  `server/sched.go` `supportsContextShift`: models of the deepseek2 architecture (DeepSeek V2,
  V3, Coder V2) have no context shift unless the request asks for it.
- `llm/llama_server.go`: `done_reason` is "length" when `num_predict` (or the context, without
  context shift) stops the reply; open-ended replies are bounded at 10 x num_ctx.
- `server/routes.go` `EmbedHandler`: an empty input only loads the model (`embeddings: []`);
  no capability is asked for, so a model without `embedding` is loaded and its llama-server,
  started without `--embedding` (`llm/llama_server.go` `appendBatchArgs`), answers 501, which
  `normalizeEmbeddingError` and the handler pass through; `dimensions` larger than the model's
  own is ignored; `truncate: false` with any input past the context fails the whole batch.
- `server/sched.go` `getRunner`: a request that finds the pending queue (OLLAMA_MAX_QUEUE, 512)
  full is refused with `ErrMaxQueue`, 503 (`handleScheduleError`); requests beyond
  OLLAMA_NUM_PARALLEL otherwise wait, unrefused, for the runner.
- `internal/modelref/modelref.go` `ParseRef`: a name whose tag is `cloud` or ends in `-cloud`
  is a cloud model, and ChatHandler and EmbedHandler send the request on to ollama.com
  (`server/cloud_proxy.go`); signed out, the answer is 401 `unauthorized` with a signin_url.
- `server/routes.go` `Serve`: with no `num_ctx` the server uses its own default, 4096 on a
  computer with less than 23 GB of GPU memory (32768 or 262144 on larger GPUs).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

DEFAULT_NUM_CTX = 4096  # Ollama's default context on a GPU with less than 23 GB
NUM_KEEP = 4  # api.DefaultOptions().NumKeep
OPEN_ENDED_MULTIPLIER = 10  # llm/llama_server.go openEndedGenerationContextMultiplier
EMBED_UNSUPPORTED = "This server does not support embeddings. Start it with `--embeddings`"
SERVER_BUSY = "server busy, please try again.  maximum pending requests exceeded"
THINK_STRINGS = ("high", "medium", "low", "max")
PROMPT_TOO_LONG = (
    "the prompt is longer than the context length currently available to the model; shorten "
    "the prompt, adjust the context length in settings, or use a model with a longer context "
    "length"
)

# Ollama's library names of models whose GGUF architecture is deepseek2: no context shift.
DEEPSEEK2_MODELS = ("deepseek-v2", "deepseek-v3", "deepseek-coder-v2")

# Families that ship with the thinking capability in Ollama's library.
THINKING_FAMILIES = ("qwen3", "deepseek-r1", "gpt-oss", "magistral", "phi4-reasoning")

_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 micro sign
    "μs": 1e-6,  # U+03BC Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_DURATION_PART = re.compile(r"(\d*\.?\d*)([^\d.]*)")


class RuleError(Exception):
    """A request Ollama refuses: `status` and the exact `message` of its JSON error body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def go_duration_seconds(text: str) -> float:
    """Go's time.ParseDuration, returning seconds; raises RuleError with Go's own message."""
    quoted = json.dumps(text)
    invalid = RuleError(400, f"time: invalid duration {quoted}")
    rest = text
    sign = 1.0
    if rest[:1] in ("-", "+"):
        sign = -1.0 if rest[0] == "-" else 1.0
        rest = rest[1:]
    if rest == "0":
        return 0.0
    if not rest:
        raise invalid
    total = 0.0
    while rest:
        match = _DURATION_PART.match(rest)
        assert match is not None
        number, unit = match.groups()
        if number in ("", "."):
            raise invalid
        if not unit:
            raise RuleError(400, f"time: missing unit in duration {quoted}")
        if unit not in _UNITS:
            raise RuleError(400, f"time: unknown unit {json.dumps(unit)} in duration {quoted}")
        total += float(number) * _UNITS[unit]
        rest = rest[len(number) + len(unit) :]
    return sign * total


def check_keep_alive(value: Any) -> None:
    """`Duration.UnmarshalJSON`: a number (seconds, negative = forever) or a duration string."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return
    if isinstance(value, str):
        go_duration_seconds(value)
        return
    kind = {bool: "bool", list: "[]interface {}", dict: "map[string]interface {}"}
    raise RuleError(400, f"Unsupported type: '{kind.get(type(value), type(value).__name__)}'")


def check_think(value: Any) -> None:
    """`ThinkValue.UnmarshalJSON`: a boolean or one of the level strings."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if value not in THINK_STRINGS:
            raise RuleError(
                400,
                f"invalid think value: {json.dumps(value)} "
                '(must be "high", "medium", "low", "max", true, or false)',
            )
        return
    raise RuleError(
        400, 'think must be a boolean or string ("high", "medium", "low", "max", true, or false)'
    )


def wants_thinking(value: Any) -> bool:
    """`ThinkValue.Bool()`: true, or any level string."""
    return value is True or isinstance(value, str)


def default_capabilities(name: str) -> tuple[str, ...]:
    """What `ollama show` lists for a model, guessed from its name as Ollama's library has it."""
    base = name.rsplit("/", 1)[-1].split(":")[0].lower()
    if "embed" in base or "minilm" in base or base.startswith("bge"):
        return ("embedding",)
    caps = ["completion", "tools"]
    if base.startswith(THINKING_FAMILIES):
        caps.append("thinking")
    return tuple(caps)


def context_shift(name: str, shift: Any) -> bool:
    """`resolveContextShift`: the request's `shift` if sent, else on unless the model is of the
    deepseek2 architecture."""
    if shift is not None:
        return bool(shift)
    return not name.rsplit("/", 1)[-1].lower().startswith(DEEPSEEK2_MODELS)


def is_cloud(name: str) -> bool:
    """`parseSourceSuffix`: the last `:` part is `cloud`, or a tag ending in `-cloud`."""
    _, colon, suffix = name.strip().rpartition(":")
    suffix = suffix.strip().lower()
    return bool(colon) and (suffix == "cloud" or ("/" not in suffix and suffix.endswith("-cloud")))


def canonical_name(name: str) -> str:
    """`model.ParseName` with its defaults (host registry.ollama.ai, namespace library, tag
    latest), compared as `getExistingName` does: without case."""
    parts = name.split("/")
    if len(parts) == 1:
        parts = ["library", *parts]
    if len(parts) == 2:
        parts = ["registry.ollama.ai", *parts]
    if ":" not in parts[-1]:
        parts[-1] += ":latest"
    return "/".join(parts).casefold()


def full_name(name: str) -> str:
    """`model.ParseName(...).String()`: the name Ollama puts in capability errors."""
    host_ns = "" if "/" in name else "registry.ollama.ai/library/"
    tag = "" if ":" in name.rsplit("/", 1)[-1] else ":latest"
    return f"{host_ns}{name}{tag}"


def count_tokens(text: str) -> int:
    """The fake's tokenizer: about four bytes a token, like an English BPE vocabulary."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def message_tokens(message: Mapping[str, Any]) -> int:
    """One rendered message: its text, any tool calls, and a few template tokens."""
    calls = message.get("tool_calls") or []
    text = str(message.get("content") or "") + str(message.get("thinking") or "")
    return 4 + count_tokens(text) + (count_tokens(json.dumps(calls)) if calls else 0)


def prompt_tokens(messages: Sequence[Mapping[str, Any]], tools: Sequence[Any]) -> int:
    return sum(message_tokens(m) for m in messages) + (
        count_tokens(json.dumps(tools)) if tools else 0
    )


def fit_messages(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Any], num_ctx: int
) -> list[Mapping[str, Any]]:
    """`chatPrompt`: drop messages from the front until the rest fits, keeping system messages
    and always the last message."""
    for start in range(len(messages)):
        system = [m for m in messages[:start] if m.get("role") == "system"]
        kept = [*system, *messages[start:]]
        if prompt_tokens(kept, tools) <= num_ctx or start == len(messages) - 1:
            return kept
    return []


def context_shift_limit(num_ctx: int, num_keep: int = NUM_KEEP) -> int:
    """`contextShiftPromptLimit`: how many prompt tokens survive a truncation."""
    num_keep = max(0, min(num_keep, num_ctx - 1))
    return num_ctx - max((num_ctx - num_keep) // 2, 1)


def tool_arguments_ok(calls: Any) -> bool:
    """Ollama's tool calls always carry their arguments as a JSON object."""
    return all(
        isinstance(call, Mapping) and isinstance(call.get("function", {}).get("arguments"), dict)
        for call in calls or []
    )
