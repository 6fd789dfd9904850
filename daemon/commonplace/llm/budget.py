"""How much text fits in one chat call, estimated in code before anything is sent.

Ollama does not refuse a prompt longer than the model's context: it drops the start of the
conversation and then cuts the prompt itself, keeping only its first few tokens and the newest
half, so the rules at the top are what the model loses first. So each stage fits its variable
part (a capture, passages, the week's lists) into the room left by the rest, measured here.

Without `[ollama] num_ctx` the server uses its own context: 4096 tokens on a computer with
less than 23 GB of GPU memory, more on bigger GPUs. The smallest is assumed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

OLLAMA_DEFAULT_CTX = 4096  # Ollama's context when none is sent, on a small GPU
BYTES_PER_TOKEN = 3  # an over-estimate: English runs about 4 bytes a token, CJK text about 3
MESSAGE_TOKENS = 8  # the chat template's own tokens around each message
REPLY_TOKENS = 1024  # kept free for the answer: a JSON proposal, a few sentences, an answer
THINKING_TOKENS = 2048  # kept free as well when the model may think first

CUT_MARK = "\n\n[... {n} characters of this capture are not shown here ...]\n\n"


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def messages_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    return sum(MESSAGE_TOKENS + estimate_tokens(str(m.get("content") or "")) for m in messages)


def excerpt(text: str, max_tokens: int) -> str:
    """`text` if it fits in `max_tokens`, else its beginning and end with a line between that
    says how much was left out. Cuts fall on whitespace where there is any nearby."""
    max_bytes = max(0, max_tokens) * BYTES_PER_TOKEN
    if len(text.encode("utf-8")) <= max_bytes:
        return text
    room = max(0, max_bytes - len(CUT_MARK.encode()) - 8)
    head = _prefix(text, room * 2 // 3)
    tail = _suffix(text[len(head) :], room - len(head.encode("utf-8")))
    left_out = len(text) - len(head) - len(tail)
    return head.rstrip() + CUT_MARK.format(n=f"{left_out:,}") + tail.lstrip()


def _prefix(text: str, max_bytes: int) -> str:
    cut = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    space = max(cut.rfind("\n"), cut.rfind(" "))
    return cut[:space] if space > len(cut) * 0.8 else cut


def _suffix(text: str, max_bytes: int) -> str:
    if max_bytes <= 0:
        return ""
    data = text.encode("utf-8")
    cut = data[max(0, len(data) - max_bytes) :].decode("utf-8", errors="ignore")
    space = min((i for i in (cut.find("\n"), cut.find(" ")) if i >= 0), default=-1)
    return cut[space + 1 :] if 0 <= space < len(cut) * 0.2 else cut
