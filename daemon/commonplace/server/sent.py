"""Which captures the phone has already sent: capture id -> the inbox file it became.

The page keeps a capture until the daemon answers with its path; if the answer is lost (the
connection dropped after the file was written) the page sends it again with the same id. This
record turns that resend into "already saved" instead of a second file, also across a daemon
restart, because it lives in the data folder. It holds the last few hundred ids only.

A share from another app may come twice without one id: Android's share sheet posts it to the
page's /share, where the service worker keeps it and the page sends it with an id of its own;
when the worker is not there (not yet controlling the page, evicted, being updated) the daemon
gets the same POST and saves it itself (share_target.py); sharing it again after a lost answer
gives the other path the same words and files. So a share is also recorded by its content
(`share_keys`): the same content shared within SAME_SHARE_S of a saved one is that one again.

Two sends of one id can also arrive together (the page open twice, as the installed app and in
a tab, flushing the same kept captures; a send the page gave up on after 20 s while the daemon
still waited for git): each found the id not yet recorded and saved its own file, ten files
for ten sends. So the look-up, the write and the record of one id are done one send at a time
(`one_at_a_time`); sends of other ids do not wait for each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from commonplace.runtime.statefile import read_json, write_json

log = logging.getLogger(__name__)

KEEP = 500
FILE_NAME = "sent-captures.json"
# Two arrivals of the same content this close together (by when each was shared) are one share:
# a retry comes within seconds or minutes; the same link shared again tomorrow is a new capture.
SAME_SHARE_S = 15 * 60


def share_keys(content: str, shared_at: float) -> tuple[list[str], str]:
    """The keys under which a share of this content (a digest, see api_share.share_digest),
    shared at `shared_at` (epoch seconds), may have been recorded already, and the key to record
    it under. Times are cut into SAME_SHARE_S slots; a share matches its own slot and the two
    beside it, so two arrivals less than SAME_SHARE_S apart always match, and two more than
    twice that apart never do."""
    slot = int(shared_at // SAME_SHARE_S)
    # ':' is in no capture id (api_capture._ID): these keys never meet an id a client sent.
    return [f"share:{content}:{n}" for n in (slot, slot - 1, slot + 1)], f"share:{content}:{slot}"


class SentCaptures:
    def __init__(self, data_path: Path, keep: int = KEEP) -> None:
        self.path = data_path / FILE_NAME
        self.keep = keep
        self._ids: dict[str, str] | None = None
        self._sending: dict[str, tuple[asyncio.Lock, int]] = {}  # id -> lock, sends holding it

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, capture_id: str) -> AsyncIterator[None]:
        """Hold `capture_id` for one send's look-up, write and record; a second send of it
        waits here and then finds it recorded."""
        lock, users = self._sending.get(capture_id, (asyncio.Lock(), 0))
        self._sending[capture_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._sending[capture_id]
            if users == 1:
                del self._sending[capture_id]
            else:
                self._sending[capture_id] = (lock, users - 1)

    def get(self, capture_id: str) -> str | None:
        return self._load().get(capture_id)

    def add(self, capture_id: str, path: str) -> None:
        ids = self._load()
        ids[capture_id] = path
        while len(ids) > self.keep:
            del ids[next(iter(ids))]
        self._save(ids)

    def _load(self) -> dict[str, str]:
        if self._ids is None:
            raw = read_json(self.path)
            self._ids = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
        return self._ids

    def _save(self, ids: dict[str, str]) -> None:
        try:
            write_json(self.path, ids)
        except OSError as exc:  # the capture itself is saved; only the resend guard is lost
            log.warning("could not record sent capture ids in %s: %s", self.path, exc)
