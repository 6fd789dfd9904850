"""Settings, read once from commonplace.toml and the environment, then passed down.

Every key has a default, so a missing file is fine; a wrong key or value is not: it stops the
program with one line that names the key, the bad value and what is allowed, because a typo that
is silently ignored is a setting the user believes in and does not have.

values.py holds the plain values and one-value checks; models.py, engine.py, services.py and
stages.py the sections (every key with its type, default and `doc`, which the reference is
generated from);
settings.py the whole; load.py the reading. Import from `commonplace.config`, never from them.

May import: vault.
"""

from commonplace.config.engine import BuiltinSettings
from commonplace.config.load import load_settings, set_vault
from commonplace.config.models import ALIASES, ModelSettings, OllamaSettings, OpenAISettings
from commonplace.config.services import (
    CalendarSettings,
    LimitSettings,
    McpSettings,
    PushSettings,
    WeatherSettings,
    WebSettings,
)
from commonplace.config.settings import ENV_OVERRIDES, Settings
from commonplace.config.stages import (
    WEEKDAYS,
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
from commonplace.config.values import (
    APP,
    DEFAULT_CHAT_MODEL,
    DEFAULT_EMBED_MODEL,
    DEFAULT_OLLAMA_HOST,
    ConfigError,
    default_config_path,
    default_data_dir,
    is_cloud_model,
    keep_alive_value,
    local_timezone_name,
    normalize_ollama_host,
    ollama_host_problem,
)

__all__ = [
    "ALIASES",
    "APP",
    "DEFAULT_CHAT_MODEL",
    "DEFAULT_EMBED_MODEL",
    "DEFAULT_OLLAMA_HOST",
    "ENV_OVERRIDES",
    "WEEKDAYS",
    "AskSettings",
    "AssistantSettings",
    "AttachmentSettings",
    "BriefingSettings",
    "BuiltinSettings",
    "CalendarSettings",
    "ClipSettings",
    "ConfigError",
    "DigestSettings",
    "Folders",
    "IndexSettings",
    "LeaseSettings",
    "LimitSettings",
    "McpSettings",
    "ModelSettings",
    "OllamaSettings",
    "OpenAISettings",
    "PushSettings",
    "Settings",
    "SpeechSettings",
    "TidySettings",
    "WeatherSettings",
    "WebSettings",
    "default_config_path",
    "default_data_dir",
    "is_cloud_model",
    "keep_alive_value",
    "load_settings",
    "local_timezone_name",
    "normalize_ollama_host",
    "ollama_host_problem",
    "set_vault",
]
