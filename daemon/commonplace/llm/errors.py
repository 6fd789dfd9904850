"""What can go wrong with the model, each with a sentence that tells the user what to do.

Every error names the server that failed (servers.py): Ollama, LM Studio, llama.cpp's server,
vLLM, Jan, the built-in model. The rest of the program handles these neutral classes only; each
backend turns its own wire's failures into them.
"""

from __future__ import annotations

from commonplace.llm.servers import Server

OLLAMA = Server("ollama", "http://127.0.0.1:11434")  # the default, for errors made without one


class LLMError(Exception):
    """Base: `str(error)` is the message for the user; `retryable` says if waiting may help.

    `str()` is written for the background stages, which try again by themselves; a person who
    asked and is waiting for the answer (the page, the CLI, the plugin, an MCP client) gets
    `to_person()`, which never promises a retry that nobody will make."""

    retryable = True

    def to_person(self) -> str:
        return str(self)


class ModelUnavailable(LLMError):
    """The model server cannot be reached (or, for the built-in model, could not start)."""

    def __init__(self, server: Server | str, reason: str = "") -> None:
        if isinstance(server, str):
            server = Server("ollama", server)
        super().__init__(server.not_answering(reason))
        self.server = server
        self.host = server.url
        self.reason = reason


class ModelMissing(LLMError):
    retryable = False

    def __init__(self, model: str, server: Server = OLLAMA, key: str = "chat_model") -> None:
        if server.kind == "ollama":
            text = f"The model '{model}' is not in Ollama. Run: ollama pull {model}"
        elif server.kind == "builtin":
            text = f"The built-in model '{model}' is not installed; {server.model_advice(model)}"
        else:
            text = f"{server.where} has no model '{model}': {server.model_advice(model, key)}."
        super().__init__(text)
        self.model = model
        self.server = server


class ModelUnsuitable(LLMError):
    """The model cannot do what was asked: an embedding model as the chat model, thinking or
    tools asked of a model without them, or a chat model as the embedding model. Waiting will
    not help."""

    retryable = False

    def __init__(self, model: str, message: str, server: Server = OLLAMA) -> None:
        self.model = model
        self.server = server
        if "support embeddings" in message:
            # Ollama's words are llama-server's: "Start it with `--embeddings`" names a flag
            # of a server the user never starts; what they can change is the setting.
            example = (
                "e.g. nomic-embed-text (ollama pull nomic-embed-text)"
                if server.kind == "ollama"
                else "an embedding model the server has loaded"
            )
            super().__init__(
                f"The model '{model}' is not an embedding model ({server.name} answered: "
                f"{message}). Set [model] embed_model to one, {example}."
            )
            return
        if "does not support thinking" in message:
            advice = 'set [model] think = "off" or pick a model that can think'
        elif "does not support chat" in message or "does not support generate" in message:
            advice = "it is not a chat model; set [model] chat_model to one (e.g. qwen3.5:9b)"
        elif "tools" in message:
            advice = (
                "the assistant needs a model that can call tools; set [model] chat_model to "
                "one (e.g. qwen3.5:9b)"
            )
        else:
            advice = "pick a model that supports it"
        super().__init__(f"{server.name} refused the model '{model}': {message}; {advice}.")


class CloudModel(LLMError):
    """A model Ollama would run on ollama.com (a `-cloud` or `:cloud` tag): never sent a note.
    The settings refuse such a name at start-up; this guards every other way a name arrives."""

    retryable = False

    def __init__(self, model: str) -> None:
        super().__init__(
            f"The model '{model}' is one of Ollama's cloud models: Ollama would send the notes "
            "to ollama.com to run it, so nothing was sent. Pick a model that runs on this "
            "computer."
        )
        self.model = model


class LLMTimeout(LLMError):
    def __init__(self, what: str, seconds: float, server: Server = OLLAMA) -> None:
        self.why = (
            f"{server.name} took longer than {seconds:g} s to {what}. The model may still be "
            "loading or the computer is busy"
        )
        self.server = server
        super().__init__(f"{self.why}; it will be tried again {_RAISE_IT}")

    def to_person(self) -> str:
        return f"{self.why}; ask again in a moment {_RAISE_IT}"


_RAISE_IT = "(raise [model] timeout_s if it repeats)."


class BadAnswer(LLMError):
    """The model answered, but not in the shape asked for; `raw` keeps what it said."""

    def __init__(self, reason: str, raw: str = "") -> None:
        super().__init__(f"The model's answer could not be used: {reason}")
        self.reason = reason
        self.raw = raw


class ModelFailed(LLMError):
    """The server itself reported an error (out of memory, bad request, ...)."""

    def __init__(self, status: int, message: str, server: Server = OLLAMA) -> None:
        name = server.name
        if status < 0:  # the client's status for an error line in the middle of a stream
            text = f"{name} stopped the answer with an error: {message}"
        else:
            text = f"{name} answered with an error ({status}): {message}"
        if "longer than the context length" in message or "exceed_context_size" in message:
            # Ollama (llm/llama_server.go) and llama.cpp's server both say so; for this program
            # the context is [model] context.
            text += " (here the context length is [model] context)"
        super().__init__(text)
        self.status = status
        self.server = server
        # A 4xx is the server refusing this request as it is: sending it again gets the same
        # answer. Overload, a crashed runner and a broken stream may pass.
        self.retryable = status >= 500 or status in (429, -1)

    def to_person(self) -> str:
        log = "its log" if self.server.kind == "builtin" else f"{self.server.name}'s own log"
        if self.retryable:
            return f"{self}; ask again in a moment ({log} says why if it repeats)."
        return f"{self}; {log} says why (asking again gets the same answer)."


class ModelBadReply(LLMError):
    """The server's HTTP reply could not be read (cut off, not JSON, a proxy's error page): a
    fault of the connection or the server, tried again; not a bad answer from the model."""

    def __init__(self, server: Server = OLLAMA) -> None:
        self.server = server
        super().__init__(
            f"{server.name}'s reply could not be read (cut off or not JSON); it will be tried again"
        )

    def to_person(self) -> str:
        return (
            f"{self.server.name}'s reply could not be read (cut off or not JSON); ask again in "
            "a moment"
        )


class NoModelServer(LLMError):
    """`backend = "auto"` found neither Ollama nor the built-in engine's models: the one
    message that names both ways, in words a person can follow."""

    retryable = False

    def __init__(self, ollama_url: str, size: str = "1.1 GB") -> None:
        super().__init__(
            f"No model is available: Ollama is not answering at {ollama_url}, and the built-in "
            "model is not installed. Either install Ollama (https://ollama.com) and run "
            "`ollama pull qwen3.5:9b` and `ollama pull nomic-embed-text`, or run "
            f"`commonplace models get` for the built-in model ({size}, runs on this computer's "
            "CPU)."
        )
