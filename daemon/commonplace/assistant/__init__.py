"""The assistant: a conversation with tools where the program, not the model, asks before
anything changes (gate.py), and every reply is checked before the owner sees it (checks.py).

May import: basics, calendar, config, llm, prompts, runtime, vault, weather.
"""

from commonplace.assistant.actions import Action, Described, Propose, Stale, ToolError
from commonplace.assistant.engine import Assistant, Outcome, Proposed, Turn
from commonplace.assistant.gate import Proposal, Refused
from commonplace.assistant.registry import Param, Registry, Tool, ToolContext
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
