"""A change in the vault, as the watcher reports it and the stages receive it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ChangeKind = Literal["created", "modified", "deleted"]


@dataclass(frozen=True)
class Change:
    """One file that changed; a move arrives as 'deleted' (old path) plus 'created' (new path)."""

    path: str  # vault-relative, '/'-separated
    kind: ChangeKind
