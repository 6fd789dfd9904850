"""The assistant: a conversation with tools where the program, not the model, asks before
anything changes (gate.py), and every reply is checked before the owner sees it (checks.py)."""

from commonplace.assistant.engine import Assistant, Outcome, Proposed, Turn
from commonplace.assistant.gate import Action, Described, Proposal, Refused, Stale
from commonplace.assistant.registry import Param, Propose, Registry, Tool, ToolContext, ToolError
from commonplace.assistant.service import build_assistant, build_registry

__all__ = [
    "Action",
    "Assistant",
    "Described",
    "Outcome",
    "Param",
    "Proposal",
    "Propose",
    "Proposed",
    "Refused",
    "Registry",
    "Stale",
    "Tool",
    "ToolContext",
    "ToolError",
    "Turn",
    "build_assistant",
    "build_registry",
]
