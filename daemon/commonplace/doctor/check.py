"""One line of `commonplace doctor` (llm/health.py makes the model server's)."""

from commonplace.llm.health import Check, Level

__all__ = ["Check", "Level"]
