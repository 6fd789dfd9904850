"""What can go wrong with the model, each with a sentence that tells the user what to do."""

from __future__ import annotations


class LLMError(Exception):
    """Base: `str(error)` is the message for the user; `retryable` says if waiting may help.

    `str()` is written for the background stages, which try again by themselves; a person who
    asked and is waiting for the answer (the page, the CLI, the plugin, an MCP client) gets
    `to_person()`, which never promises a retry that nobody will make."""

    retryable = True

    def to_person(self) -> str:
        return str(self)


class OllamaUnavailable(LLMError):
    def __init__(self, host: str) -> None:
        super().__init__(
            f"Ollama is not answering at {host}. Start it with 'ollama serve' "
            "(or set OLLAMA_HOST / [ollama] host to where it runs)."
        )
        self.host = host


class ModelMissing(LLMError):
    retryable = False

    def __init__(self, model: str) -> None:
        super().__init__(f"The model '{model}' is not in Ollama. Run: ollama pull {model}")
        self.model = model


class ModelUnsuitable(LLMError):
    """The model cannot do what was asked: an embedding model as the chat model, thinking or
    tools asked of a model without them (Ollama says so with a 400), or a chat model as the
    embedding model (its runner says so with a 501, after Ollama loaded the whole model).
    Waiting will not help."""

    retryable = False

    def __init__(self, model: str, message: str) -> None:
        self.model = model
        if "support embeddings" in message:
            # Ollama's words are llama-server's: "Start it with `--embeddings`" names a flag
            # of a server the user never starts; what they can change is the setting.
            super().__init__(
                f"The model '{model}' is not an embedding model (Ollama answered: {message}). "
                "Set [ollama] embed_model to one, e.g. nomic-embed-text "
                "(ollama pull nomic-embed-text)."
            )
            return
        if "does not support thinking" in message:
            advice = 'set [ollama] think = "off" or pick a model that can think'
        elif "does not support chat" in message or "does not support generate" in message:
            advice = "it is not a chat model; set [ollama] chat_model to one (e.g. qwen3.5:9b)"
        elif "does not support tools" in message:
            advice = (
                "the assistant needs a model that can call tools; set [ollama] chat_model to "
                "one (e.g. qwen3.5:9b)"
            )
        else:
            advice = "pick a model that supports it"
        super().__init__(f"Ollama refused the model '{model}': {message}; {advice}.")


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
    def __init__(self, what: str, seconds: float) -> None:
        self.why = (
            f"Ollama took longer than {seconds:g} s to {what}. The model may still be loading or "
            "the computer is busy"
        )
        super().__init__(f"{self.why}; it will be tried again {_RAISE_IT}")

    def to_person(self) -> str:
        return f"{self.why}; ask again in a moment {_RAISE_IT}"


_RAISE_IT = "(raise [ollama] timeout_s if it repeats)."


class BadAnswer(LLMError):
    """The model answered, but not in the shape asked for; `raw` keeps what it said."""

    def __init__(self, reason: str, raw: str = "") -> None:
        super().__init__(f"The model's answer could not be used: {reason}")
        self.reason = reason
        self.raw = raw


class OllamaFailed(LLMError):
    """Ollama itself reported an error (out of memory, bad request, ...)."""

    def __init__(self, status: int, message: str) -> None:
        if status < 0:  # the client's status for an error line in the middle of a stream
            text = f"Ollama stopped the answer with an error: {message}"
        else:
            text = f"Ollama answered with an error ({status}): {message}"
        if "longer than the context length" in message:
            # llm/llama_server.go, a model without context shift: "the settings" are Ollama's
            # app's; for this program the context is [ollama] num_ctx.
            text += " (here the context length is [ollama] num_ctx)"
        super().__init__(text)
        self.status = status
        # A 4xx is Ollama (or its llama-server runner) refusing this request as it is: sending
        # it again gets the same answer. Overload, a crashed runner and a broken stream may pass.
        self.retryable = status >= 500 or status in (429, -1)

    def to_person(self) -> str:
        if self.retryable:
            return f"{self}; ask again in a moment (Ollama's own log says why if it repeats)."
        return f"{self}; Ollama's own log says why (asking again gets the same answer)."


class OllamaBadReply(LLMError):
    """Ollama's HTTP reply could not be read (cut off, not JSON, a proxy's error page): a fault
    of the connection or the server, tried again; not a bad answer from the model."""

    def __init__(self) -> None:
        super().__init__(
            "Ollama's reply could not be read (cut off or not JSON); it will be tried again"
        )

    def to_person(self) -> str:
        return "Ollama's reply could not be read (cut off or not JSON); ask again in a moment"
