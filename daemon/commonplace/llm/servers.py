"""Which model server this is, named for a person, with what to do when it fails.

An error must name the server that failed, in the words its owner knows: "LM Studio at
http://127.0.0.1:1234 did not answer: start its server (Developer tab) or set [openai]
base_url", never a generic "Ollama" when it is not Ollama. An OpenAI-compatible server does not
say what it is in one standard way, so the guess starts from its port (each of these servers has
its own default) and the probe (probe.py) corrects it from what the server answers: llama.cpp's
`/props`, vLLM's `/version`, the `owned_by` of `/v1/models`, Ollama's `/api/version`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

# kind -> (name for a person, what to do when it does not answer, how a model gets there)
_KINDS: dict[str, tuple[str, str, str]] = {
    "ollama": (
        "Ollama",
        "Start it with 'ollama serve' (or set OLLAMA_HOST / [ollama] host to where it runs).",
        "Run: ollama pull {model}",
    ),
    "lmstudio": (
        "LM Studio",
        "start its server (Developer tab, or `lms server start`) or set [openai] base_url",
        "load it in LM Studio (`lms load {model}`), or set [model] {key} to a model it lists",
    ),
    "llama.cpp": (
        "llama.cpp's server",
        "start llama-server (e.g. `llama-server -m model.gguf --jinja --port 8080`) or set "
        "[openai] base_url",
        "start llama-server with that model (-m), or set [model] {key} to the one it serves",
    ),
    "vllm": (
        "vLLM",
        "start it (`vllm serve MODEL`) or set [openai] base_url",
        "start vLLM with that model, or set [model] {key} to the one it serves",
    ),
    "jan": (
        "Jan",
        "start Jan's Local API Server (Settings > Local API Server) or set [openai] base_url",
        "start that model in Jan, or set [model] {key} to a model it lists",
    ),
    "ollama-openai": (
        "Ollama",
        "start it with 'ollama serve' or set [openai] base_url",
        "run: ollama pull {model}",
    ),
    "openai": (
        "The OpenAI-compatible server",
        "start it or set [openai] base_url",
        "load that model on the server, or set [model] {key} to a model it lists",
    ),
    "builtin": (
        "The built-in model",
        "'commonplace doctor' says why it could not start",
        "run: commonplace models get {model}",
    ),
}
# The default port of each server, for a first guess before the probe has asked.
_PORTS = {1234: "lmstudio", 8080: "llama.cpp", 8000: "vllm", 1337: "jan", 11434: "ollama-openai"}


@dataclass(frozen=True)
class Server:
    """A model server: its kind (a key of _KINDS) and where it is."""

    kind: str
    url: str

    @property
    def name(self) -> str:
        """'LM Studio', 'Ollama', 'The built-in model' (capitalised: it starts sentences)."""
        return _KINDS.get(self.kind, _KINDS["openai"])[0]

    @property
    def where(self) -> str:
        """'LM Studio at http://127.0.0.1:1234'; the built-in model is just itself."""
        if self.kind == "builtin":
            return self.name
        return f"{self.name} at {self.url}"

    def start_advice(self) -> str:
        return _KINDS.get(self.kind, _KINDS["openai"])[1]

    def model_advice(self, model: str, key: str = "chat_model") -> str:
        return _KINDS.get(self.kind, _KINDS["openai"])[2].format(model=model, key=key)

    def not_answering(self, reason: str = "") -> str:
        """The sentence for a server that cannot be reached."""
        if self.kind == "ollama":  # the wording Ollama's users know (and the docs show)
            return f"Ollama is not answering at {self.url}. {self.start_advice()}"
        if self.kind == "builtin":
            why = f": {reason}" if reason else ""
            return f"The built-in model is not running{why}; {self.start_advice()}."
        return f"{self.where} did not answer: {self.start_advice()}."


def guess_kind(base_url: str) -> str:
    """A first guess from the address alone (the probe knows better)."""
    port = urlsplit(base_url).port
    return _PORTS.get(port or 0, "openai")


def kind_from_probe(
    owned_by: str = "", props: bool = False, vllm_version: bool = False, ollama: bool = False
) -> str:
    """The kind from what the server answered: llama.cpp alone serves /props, vLLM /version,
    Ollama /api/version; LM Studio and Jan say who owns their models in /v1/models."""
    owner = owned_by.lower()
    if ollama:
        return "ollama-openai"
    if props or owner == "llamacpp":
        return "llama.cpp"
    if vllm_version or owner == "vllm":
        return "vllm"
    if owner == "jan" or owner.startswith("jan"):
        return "jan"
    if owner == "organization_owner" or "lmstudio" in owner:
        return "lmstudio"
    return ""
