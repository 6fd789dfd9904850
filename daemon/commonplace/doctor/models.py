"""The model server's lines of `commonplace doctor` and `init`: made by llm/health.py, beside
the backends whose checks they are."""

from commonplace.llm.health import (
    model_capabilities,
    model_checks,
    model_server_checks,
    model_warning_checks,
)

__all__ = ["model_capabilities", "model_checks", "model_server_checks", "model_warning_checks"]
