"""The bearer token that lets the Obsidian plugin in: made once, kept in the data folder.

Requests from Obsidian come from the origin `app://obsidian.md`, which the daemon's other checks
(made for its own phone page) would refuse. The daemon lets that origin in only with this token,
so "can run code in Obsidian's window and knows the secret" is what it takes, not "is a page
that says it is Obsidian". The file is mode 0600 from its first byte; `rotate` replaces it, and
the daemon reads it on each such request, so a rotation works without a restart.

Stdlib only: `commonplace token` must not wait for the server's or the index's imports.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import stat
from pathlib import Path

from commonplace.vault import FileChanged, atomic_write, replace_file

log = logging.getLogger(__name__)

TOKEN_FILE = "api-token"
TOKEN_BYTES = 32  # 43 url-safe characters


def token_path(data_path: Path) -> Path:
    return data_path / TOKEN_FILE


def read_token(path: Path) -> str | None:
    """The token, or None when none has been made (or the file is unusable: then no token
    works, which refuses rather than lets in)."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("%s cannot be read (%s); run 'commonplace token --rotate'", path, exc)
        return None
    return text or None


def get_or_create_token(path: Path) -> tuple[str, bool]:
    """The token, made the first time; and whether it was made now."""
    existing = read_token(path)
    if existing:
        _tighten(path)
        return existing, False
    token = secrets.token_urlsafe(TOKEN_BYTES)
    try:
        if path.exists():  # empty or unreadable: replace it
            replace_file(path, token + "\n", mode=0o600)
        else:
            atomic_write(path, token + "\n", expect=None, mode=0o600)
    except FileChanged:  # another process made one a moment ago: use theirs
        theirs = read_token(path)
        if theirs:
            return theirs, False
        raise
    _tighten(path)
    log.info("created the API token in %s", path)
    return token, True


def rotate_token(path: Path) -> str:
    """A new token; the old one stops working at once (the daemon reads the file each time)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    replace_file(path, token + "\n", mode=0o600)
    _tighten(path)
    log.info("replaced the API token in %s", path)
    return token


def token_matches(expected: str | None, authorization: str | None) -> bool:
    """`Authorization: Bearer <token>` against the token, in constant time."""
    if not expected or not authorization:
        return False
    scheme, _, given = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), expected.encode("utf-8"))


def _tighten(path: Path) -> None:
    """Owner-only, also for a file someone copied in or whose mode was changed by hand."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); setting it to 0600", path, mode)
        path.chmod(0o600)
