"""Entries a stage leaves alone, and why: what `/api/state` and the phone page show.

Each stage that finds something it will not read (a symbolic link or a FIFO in Inbox/, say)
keeps it here and reports the list in its `status()`; `/api/state` gathers every stage's list
under `skipped`, and `doctor` finds the same entries by walking the vault. An entry leaves the
list when it becomes readable or is deleted. Kept in memory: a restart finds them again.
"""

from __future__ import annotations


class SkippedEntries:
    def __init__(self) -> None:
        self._reasons: dict[str, str] = {}

    def add(self, path: str, reason: str) -> bool:
        """Record why `path` is skipped; True when this is news (worth a log line)."""
        if self._reasons.get(path) == reason:
            return False
        self._reasons[path] = reason
        return True

    def discard(self, path: str) -> None:
        self._reasons.pop(path, None)

    def __contains__(self, path: object) -> bool:
        return path in self._reasons

    def as_list(self) -> list[dict[str, str]]:
        return [{"path": p, "reason": r} for p, r in sorted(self._reasons.items())]
