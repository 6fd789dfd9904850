"""Device tokens: one per paired Obsidian (a laptop, a phone), listed and revocable.

`commonplace plugin pair` (or the phone page) confirms a device; the daemon then makes it a token
of its own and keeps only the token's SHA-256 here (`devices.json` in the data folder, mode 0600),
so the file names the devices without holding anything that lets them in. The daemon looks at the
file's size and modification time on each request that brings a token and reads it again when it
changed: `commonplace token revoke` works at once, without a restart.

The vault's own token (apitoken.py, `commonplace token`) keeps working beside these: for MCP
clients, scripts, and a plugin set up by pasting it, as before.

Stdlib only: `commonplace token list` must not wait for the server's imports.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from commonplace.vault import replace_file

log = logging.getLogger(__name__)

DEVICES_FILE = "devices.json"
TOKEN_BYTES = 32
NAME_CHARS = 80


@dataclass(frozen=True)
class Device:
    id: str
    name: str
    created: str  # ISO 8601, UTC
    sha256: str  # of the token, hex

    def as_json(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "created": self.created, "sha256": self.sha256}


def devices_path(data_path: Path) -> Path:
    return data_path / DEVICES_FILE


def token_hash(token: str) -> str:
    return hashlib.sha256(token.strip().encode("utf-8", "replace")).hexdigest()


def clean_name(name: str) -> str:
    """A device's name as the owner will read it: one line, printable, at most 80 characters."""
    text = "".join(ch if ch.isprintable() else " " for ch in name)
    text = " ".join(text.split())[:NAME_CHARS]
    return text or "Obsidian"


def read_devices(path: Path) -> list[Device]:
    """The paired devices; none when the file is missing. An unreadable file lets no device in
    (and says so in the log), it never lets any token in."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        log.warning("%s cannot be read (%s): no paired device is let in", path, exc)
        return []
    found: list[Device] = []
    for item in raw.get("devices", []) if isinstance(raw, dict) else []:
        if isinstance(item, dict) and all(
            isinstance(item.get(k), str) for k in ("id", "name", "created", "sha256")
        ):
            found.append(Device(item["id"], item["name"], item["created"], item["sha256"]))
    return found


_write_lock = threading.Lock()  # the daemon's own writes; the CLI is another process


def _write(path: Path, devices: list[Device]) -> None:
    body: dict[str, Any] = {"devices": [d.as_json() for d in devices]}
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps(body, indent=1) + "\n", mode=0o600)


def add_device(path: Path, name: str) -> tuple[Device, str]:
    """A new device and its token (the only time the token exists outside the device)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    device = Device(
        id=secrets.token_hex(3),
        name=clean_name(name),
        created=datetime.now(UTC).replace(microsecond=0).isoformat(),
        sha256=token_hash(token),
    )
    with _write_lock:
        _write(path, [*read_devices(path), device])
    log.info("paired a new device %s (%s)", device.id, device.name)
    return device, token


def revoke_device(path: Path, device_id: str) -> Device | None:
    """Remove a device; its token is refused from the next request on. None: no such device."""
    with _write_lock:
        devices = read_devices(path)
        gone = next((d for d in devices if d.id == device_id.strip()), None)
        if gone is not None:
            _write(path, [d for d in devices if d.id != gone.id])
    if gone is not None:
        log.info("revoked device %s (%s)", gone.id, gone.name)
    return gone


class DeviceTokens:
    """The hashes of the devices' tokens, read again whenever the file changed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int, int] | None = None
        self._hashes: frozenset[str] = frozenset()

    def hashes(self) -> frozenset[str]:
        try:
            st = self.path.stat()
            seen: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            seen = None
        except OSError:
            return frozenset()
        if seen != self._seen:
            found = read_devices(self.path) if seen else []
            self._hashes = frozenset(d.sha256 for d in found)
            self._seen = seen
        return self._hashes
