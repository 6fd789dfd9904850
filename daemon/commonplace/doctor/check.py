"""One line of `commonplace doctor`: its level, what it checks, and what it says."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    level: Level
    name: str
    message: str

    def line(self) -> str:
        mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[self.level]
        return f"{mark} {self.name}: {self.message}"
