"""The OpenAI-compatible server's API key: never in the config file, which is copied and synced.

Where it is read from, first found wins: COMMONPLACE_OPENAI_API_KEY; the file `[openai]
api_key_file` names; the file `commonplace models key` writes (`api-key` in the data folder,
readable by its owner only, as the vault token is). Local servers need none. A platform keyring
was weighed and left out: on a headless Linux computer (where the daemon often runs) there is
none to ask, and a second place to look would be a second place to forget.
"""

from __future__ import annotations

import os
from pathlib import Path

from commonplace.config import Settings

ENV = "COMMONPLACE_OPENAI_API_KEY"


def key_path(settings: Settings) -> Path:
    """The key `commonplace models key` keeps: one per data folder (all vaults)."""
    return settings.data_dir / "openai-api-key"


def read_api_key(settings: Settings) -> str:
    """The key, or '' when none is set; an unreadable named file is an error worth a line."""
    if os.environ.get(ENV):
        return os.environ[ENV].strip()
    named = settings.openai.api_key_file
    path = Path(named).expanduser() if named else key_path(settings)
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        if named:
            raise OSError(f"openai.api_key_file {path} does not exist") from None
        return ""


def write_api_key(settings: Settings, key: str) -> Path:
    """Keep the key in a file only its owner can read (0600 from its first byte)."""
    path = key_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(key.strip() + "\n")
    tmp.replace(path)
    return path
