"""The daemon's VAPID key pair: made once, kept in the data folder, private key mode 0600.

The public key is what the phone page passes to PushManager.subscribe(); a push service then
accepts only messages signed with the matching private key. A new key would silently orphan
every subscription, so the key is never replaced on its own: a broken key file is an error
that says what to do.
"""

from __future__ import annotations

import base64
import logging
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from commonplace.vault import FileChanged, atomic_write

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

# cryptography (about 9 MB) is imported where a key is made or read: a daemon that never sends
# a push notification and never serves its public key does not load it.

log = logging.getLogger(__name__)

PRIVATE_KEY_FILE = "vapid_private.pem"


class PushKeyError(Exception):
    """The key file exists but cannot be used; the message says what to do."""


@dataclass(frozen=True)
class VapidKeys:
    private_key: ec.EllipticCurvePrivateKey
    path: Path

    @property
    def public_key(self) -> str:
        """The uncompressed P-256 point, base64url without padding (applicationServerKey)."""
        from cryptography.hazmat.primitives import serialization

        raw = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(raw)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def load_or_create_keys(folder: Path) -> VapidKeys:
    """Load the key pair from `folder`, creating it the first time."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    path = folder / PRIVATE_KEY_FILE
    if not path.exists():
        _create(path)
    _tighten(path)
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError, OSError) as exc:
        raise PushKeyError(
            f"{path}: the push key cannot be read ({exc}). Delete the file to make a new key; "
            "phones will then have to turn notifications on again."
        ) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise PushKeyError(f"{path}: not a P-256 key. Delete the file to make a new key.")
    return VapidKeys(key, path)


def _create(path: Path) -> None:
    """Write a new key with mode 0600 from the first byte; the create is atomic and exclusive,
    so two processes starting at once end up with the same key."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        atomic_write(path, pem, expect=None, mode=0o600)
    except FileChanged:
        return  # another process made it first: use theirs
    log.info("created a new push key in %s", path)


def _tighten(path: Path) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); setting it to 0600", path, mode)
        path.chmod(0o600)
