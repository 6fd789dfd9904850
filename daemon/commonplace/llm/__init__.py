"""Ollama access: chat with a schema, tool calls, embeddings, and leaked-draft removal.

May import: basics, config.
"""

from commonplace.llm import budget
from commonplace.llm.client import (
    LLM,
    ChatReply,
    OllamaStatus,
    StreamEnd,
    ToolCall,
    same_model,
)
from commonplace.llm.errors import (
    BadAnswer,
    CloudModel,
    LLMError,
    LLMTimeout,
    ModelMissing,
    ModelUnsuitable,
    OllamaBadReply,
    OllamaFailed,
    OllamaUnavailable,
)
from commonplace.llm.gate import ModelBusy, ModelGate, for_a_person
from commonplace.llm.think import ThinkFilter, strip_think

__all__ = [
    "LLM",
    "BadAnswer",
    "ChatReply",
    "CloudModel",
    "LLMError",
    "LLMTimeout",
    "ModelBusy",
    "ModelGate",
    "ModelMissing",
    "ModelUnsuitable",
    "OllamaBadReply",
    "OllamaFailed",
    "OllamaStatus",
    "OllamaUnavailable",
    "StreamEnd",
    "ThinkFilter",
    "ToolCall",
    "budget",
    "for_a_person",
    "same_model",
    "strip_think",
]
