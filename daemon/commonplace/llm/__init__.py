"""Model access behind one seam: chat with a schema, tool calls, embeddings, drafts removed.

The stages call the façade (`LLM`), made by `make_llm(settings)`; under it a backend speaks
one server's wire: Ollama (ollama.py), any OpenAI-compatible server such as LM Studio,
llama.cpp's llama-server, vLLM or Jan (openai.py, probe.py), or the built-in engine
(builtin.py, the same OpenAI-compatible backend pointed at llama.cpp's server run by engine/).
Nothing outside this package imports a backend; errors, status and replies are neutral.

May import: basics, config, engine.
"""

from commonplace.llm import budget
from commonplace.llm.choose import Choice, choose, ollama_answers
from commonplace.llm.client import LLM
from commonplace.llm.errors import (
    BadAnswer,
    CloudModel,
    LLMError,
    LLMTimeout,
    ModelBadReply,
    ModelFailed,
    ModelMissing,
    ModelUnavailable,
    ModelUnsuitable,
    NoModelServer,
)
from commonplace.llm.factory import make_llm
from commonplace.llm.gate import ModelBusy, ModelGate, for_a_person
from commonplace.llm.messages import call_message, neutral, tool_message
from commonplace.llm.names import same_model
from commonplace.llm.servers import Server
from commonplace.llm.think import ThinkFilter, strip_think
from commonplace.llm.types import (
    Capabilities,
    ChatReply,
    ModelStatus,
    StreamEnd,
    ToolCall,
    ToolCalling,
)

__all__ = [
    "LLM",
    "BadAnswer",
    "Capabilities",
    "ChatReply",
    "Choice",
    "CloudModel",
    "LLMError",
    "LLMTimeout",
    "ModelBadReply",
    "ModelBusy",
    "ModelFailed",
    "ModelGate",
    "ModelMissing",
    "ModelStatus",
    "ModelUnavailable",
    "ModelUnsuitable",
    "NoModelServer",
    "Server",
    "StreamEnd",
    "ThinkFilter",
    "ToolCall",
    "ToolCalling",
    "budget",
    "call_message",
    "choose",
    "for_a_person",
    "make_llm",
    "neutral",
    "ollama_answers",
    "same_model",
    "strip_think",
    "tool_message",
]
