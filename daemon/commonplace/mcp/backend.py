"""What the MCP tools need from Commonplace, with two ways to get it.

`DaemonBackend` (daemon_client.py) asks the running daemon over its JSON API: the daemon holds
the index writer, the model client and the assistant, so answers are as fresh as its index.
`LocalBackend` (local.py) is for when no daemon runs: it reads the index read-only, as the CLI
does behind a daemon, and writes only what the daemon would (a new capture; a question in the
assistant's day log in the data folder). Both return the JSON API's shapes, so a tool turns
either into the same answer.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Protocol


class BackendError(Exception):
    """A failure the client should read: a sentence that says what happened and what to do."""


class Backend(Protocol):
    async def search(self, query: str, limit: int, mode: str, folder: str) -> dict[str, Any]:
        """`{"results": [...], "mode", "notice"}`, as GET /api/search answers."""
        ...

    async def ask(self, question: str) -> dict[str, Any]:
        """`{"question", "answer", "refused", "sources", "findings", "passages"}`, as POST
        /api/ask answers."""
        ...

    async def tasks(self, today: date, due_within_days: int | None) -> dict[str, Any]:
        """`{"today", "tasks": [...], "more"}`, as GET /api/tasks answers (task_list.py)."""
        ...

    async def capture(self, text: str) -> str:
        """Save a new capture (via: mcp); its vault-relative path."""
        ...

    async def propose(self, tool: str, arguments: dict[str, Any], client: str) -> dict[str, Any]:
        """Ask the owner: `{"id", "question", "new", "asked_by"}` (POST /api/assistant/propose)."""
        ...

    async def close(self) -> None: ...
