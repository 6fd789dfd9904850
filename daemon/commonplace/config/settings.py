"""`Settings`: every section in one frozen value, made once and passed down; and which
environment variables stand for which keys.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

from commonplace.config.engine import BuiltinSettings
from commonplace.config.models import ModelSettings, OllamaSettings, OpenAISettings
from commonplace.config.services import (
    CalendarSettings,
    LimitSettings,
    McpSettings,
    PushSettings,
    WeatherSettings,
    WebSettings,
)
from commonplace.config.stages import (
    AskSettings,
    AssistantSettings,
    AttachmentSettings,
    BriefingSettings,
    ClipSettings,
    DigestSettings,
    Folders,
    IndexSettings,
    LeaseSettings,
    SpeechSettings,
    TidySettings,
)
from commonplace.config.values import default_data_dir, local_timezone_name, one_of
from commonplace.vault.journals import journal_names


@dataclass(frozen=True)
class Settings:
    vault: Path = field(
        default=Path("~/Notes"),
        metadata={"doc": "The vault: Obsidian's vault folder or Logseq's graph folder."},
    )
    flavor: str = field(
        default="obsidian",
        metadata={
            **one_of("obsidian", "logseq"),
            "doc": "How the vault is written and read: 'obsidian' (also plain Markdown "
            "folders) or 'logseq'.",
        },
    )
    data_dir: Path = field(
        default_factory=lambda: default_data_dir(),
        metadata={
            "doc": "Where the index, state, keys and archive live, one sub-folder per vault; "
            "never inside the vault."
        },
    )
    timezone: str = field(
        default="",
        metadata={"doc": "An IANA zone such as 'Europe/London'; empty: the computer's own."},
    )
    folders: Folders = field(
        default_factory=Folders,
        metadata={"doc": "The daemon's folders inside the vault (Logseq: under the pages folder)."},
    )
    model: ModelSettings = field(
        default_factory=ModelSettings,
        metadata={"doc": "The model: which server answers, which models, how calls are made."},
    )
    ollama: OllamaSettings = field(
        default_factory=OllamaSettings, metadata={"doc": "Ollama, when it is the model server."}
    )
    openai: OpenAISettings = field(
        default_factory=OpenAISettings,
        metadata={"doc": "An OpenAI-compatible model server (LM Studio, llama-server, vLLM)."},
    )
    builtin: BuiltinSettings = field(
        default_factory=BuiltinSettings,
        metadata={
            "doc": "The built-in engine: llama.cpp's server, run by the daemon as a child "
            "process, and its models."
        },
    )
    web: WebSettings = field(
        default_factory=WebSettings, metadata={"doc": "The phone page and the JSON API."}
    )
    index: IndexSettings = field(
        default_factory=IndexSettings, metadata={"doc": "The hybrid search index."}
    )
    attachments: AttachmentSettings = field(
        default_factory=AttachmentSettings,
        metadata={"doc": "PDFs and images in the vault, searched and cited by page."},
    )
    speech: SpeechSettings = field(
        default_factory=SpeechSettings, metadata={"doc": "Dictation with whisper.cpp."}
    )
    clip: ClipSettings = field(
        default_factory=ClipSettings,
        metadata={"doc": "Shared links: whether and how a linked page's text is saved."},
    )
    tidy: TidySettings = field(
        default_factory=TidySettings, metadata={"doc": "Captures becoming filed notes."}
    )
    ask: AskSettings = field(
        default_factory=AskSettings, metadata={"doc": "Answers from the notes."}
    )
    digest: DigestSettings = field(
        default_factory=DigestSettings, metadata={"doc": "The weekly digest."}
    )
    push: PushSettings = field(
        default_factory=PushSettings, metadata={"doc": "Web push notifications."}
    )
    lease: LeaseSettings = field(
        default_factory=LeaseSettings, metadata={"doc": "Several computers syncing one vault."}
    )
    assistant: AssistantSettings = field(
        default_factory=AssistantSettings, metadata={"doc": "The assistant's notes."}
    )
    mcp: McpSettings = field(
        default_factory=McpSettings, metadata={"doc": "The MCP server for other AI clients."}
    )
    limits: LimitSettings = field(
        default_factory=LimitSettings,
        metadata={"doc": "Rate limits per identity (your Tailscale login, or this computer)."},
    )
    calendar: CalendarSettings = field(
        default_factory=CalendarSettings, metadata={"doc": "The calendar, over CalDAV."}
    )
    weather: WeatherSettings = field(
        default_factory=WeatherSettings, metadata={"doc": "The forecast, from Open-Meteo."}
    )
    briefing: BriefingSettings = field(
        default_factory=BriefingSettings, metadata={"doc": "The morning briefing."}
    )
    # Not settable from the file: where the settings came from.
    config_path: Path | None = field(default=None, metadata={"internal": True})
    vault_configured: bool = field(default=False, metadata={"internal": True})

    def folder(self, key: str) -> str:
        """Vault-relative path of a daemon folder ('inbox', 'filed', 'ask', 'digests').

        In Logseq a plain name like 'Inbox' goes where Logseq puts the graph's pages
        ('pages/Inbox', or 'notes/Inbox' with `:pages-directory "notes"`: pages_folder); a
        name with a '/' is taken as given in both flavours.
        """
        name: str = getattr(self.folders, key).strip("/")
        if self.flavor == "logseq" and "/" not in name:
            return f"{self.pages_folder()}/{name}"
        return name

    def pages_folder(self) -> str:
        """In Logseq, the graph's pages directory: `:pages-directory` in logseq/config.edn,
        'pages' by default, read again when that file changes (vault/journals.py). Logseq
        writes every new page there, so the daemon's notes and namespace pages go there too.
        Empty in Obsidian."""
        return journal_names(self.vault).pages if self.flavor == "logseq" else ""

    def daemon_folders(self) -> tuple[str, ...]:
        """Vault-relative paths of the folders the daemon writes into."""
        return tuple(self.folder(k) for k in ("inbox", "filed", "ask", "digests"))

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone) if self.timezone else ZoneInfo(local_timezone_name())

    @property
    def data_path(self) -> Path:
        """The data folder of this vault: one sub-folder per vault, never inside the vault."""
        resolved = self.vault.resolve()
        digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", resolved.name).strip("-") or "vault"
        return self.data_dir / f"{slug}-{digest}"


ENV_OVERRIDES: dict[str, tuple[str, ...]] = {
    "COMMONPLACE_VAULT": ("vault",),
    "COMMONPLACE_DATA": ("data_dir",),
    "COMMONPLACE_FLAVOR": ("flavor",),
    "COMMONPLACE_TIMEZONE": ("timezone",),
    "OLLAMA_HOST": ("ollama", "host"),
    "COMMONPLACE_MODEL_BACKEND": ("model", "backend"),
    "COMMONPLACE_CHAT_MODEL": ("model", "chat_model"),
    "COMMONPLACE_EMBED_MODEL": ("model", "embed_model"),
    "COMMONPLACE_OPENAI_BASE_URL": ("openai", "base_url"),
    "COMMONPLACE_WEB_HOST": ("web", "host"),
    "COMMONPLACE_WEB_PORT": ("web", "port"),
    "COMMONPLACE_WHISPER_MODEL": ("speech", "whisper_model"),
}
