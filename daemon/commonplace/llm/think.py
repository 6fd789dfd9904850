"""Remove reasoning drafts that some models leak into their answer text."""

from __future__ import annotations

import re

_OPEN = "<think>"
_CLOSE = "</think>"
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def strip_think(text: str) -> str:
    """Keep what follows the last '</think>'; an unclosed '<think>' means no answer yet."""
    if _CLOSE in text:
        return text.rsplit(_CLOSE, 1)[1].strip()
    if text.lstrip().startswith(_OPEN):
        return ""
    return text.strip()


def strip_code_fence(text: str) -> str:
    """Models asked for JSON sometimes wrap it in a ```json fence anyway."""
    match = _FENCE.match(text)
    return match.group(1) if match else text


class ThinkFilter:
    """Streaming version of strip_think: hold text back while it may still be a draft."""

    def __init__(self) -> None:
        self._buffer = ""
        self._decided = False
        self._in_draft = False

    def feed(self, piece: str) -> str:
        if self._decided and not self._in_draft:
            return piece
        self._buffer += piece
        if not self._decided:
            head = self._buffer.lstrip()
            if len(head) < len(_OPEN) and _OPEN.startswith(head):
                return ""
            self._decided = True
            self._in_draft = head.startswith(_OPEN)
            if not self._in_draft:
                out, self._buffer = self._buffer, ""
                return out
        if _CLOSE in self._buffer:
            self._in_draft = False
            out = self._buffer.rsplit(_CLOSE, 1)[1].lstrip()
            self._buffer = ""
            return out
        return ""

    def flush(self) -> str:
        """Text still held back when the stream ends (a lone '<thi' that was not a draft)."""
        out = "" if self._in_draft else self._buffer
        self._buffer = ""
        return out
