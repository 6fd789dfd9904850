"""What can go wrong with the model, each with a sentence that tells the user what to do."""

from __future__ import annotations


class LLMError(Exception):
    """Base: `str(error)` is the message for the user; `retryable` says if waiting may help."""

    retryable = True


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


class LLMTimeout(LLMError):
    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(
            f"Ollama took longer than {seconds:g} s to {what}. The model may still be loading or "
            "the computer is busy; it will be tried again (raise [ollama] timeout_s if it repeats)."
        )


class BadAnswer(LLMError):
    """The model answered, but not in the shape asked for; `raw` keeps what it said."""

    def __init__(self, reason: str, raw: str = "") -> None:
        super().__init__(f"The model's answer could not be used: {reason}")
        self.reason = reason
        self.raw = raw


class OllamaFailed(LLMError):
    """Ollama itself reported an error (out of memory, bad request, ...)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"Ollama answered with an error ({status}): {message}")
        self.status = status
        self.retryable = status >= 500 or status == 429


class OllamaBadReply(LLMError):
    """Ollama's HTTP reply could not be read (cut off, not JSON, a proxy's error page): a fault
    of the connection or the server, tried again; not a bad answer from the model."""

    def __init__(self) -> None:
        super().__init__(
            "Ollama's reply could not be read (cut off or not JSON); it will be tried again"
        )
