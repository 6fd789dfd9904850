"""What the program checks proposals against: the vault's titles, tags and filed captures.

Built by scanning the vault; each note is parsed once and re-read only when its size or
modified time changes, so a scan per capture costs a `stat` per note. The result, VaultFacts,
is a plain value, so validate.py stays a pure function.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field

from commonplace.config import Settings
from commonplace.runtime.daemon_notes import classifier
from commonplace.runtime.foreground import pause
from commonplace.vault import NoteSkipped, iter_note_paths, read_note

log = logging.getLogger(__name__)

CAPTURE_ID_KEYS = ("capture_id", "capture-id")


@dataclass(frozen=True)
class NoteFacts:
    title: str
    tags: tuple[str, ...]
    aliases: tuple[str, ...]
    capture_id: str | None


@dataclass(frozen=True)
class VaultFacts:
    """The vault as validation sees it."""

    titles: dict[str, str] = field(default_factory=dict)  # casefolded -> real title (user notes)
    # casefolded title -> the user notes of that name: more than one, and a bare `[[Title]]`
    # may open the other one (validate.link_name)
    title_paths: dict[str, tuple[str, ...]] = field(default_factory=dict)
    daemon_titles: frozenset[str] = frozenset()  # casefolded titles of Inbox/Filed/Ask/Digests
    tags: Counter[str] = field(default_factory=Counter)  # tag -> notes using it
    # casefolded title -> that user note's tags (casefolded): the owner's words for its subject
    note_tags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    filed: dict[str, tuple[str, ...]] = field(default_factory=dict)  # capture id -> filed paths

    def top_tags(self, n: int = 30) -> list[str]:
        return [tag for tag, _ in sorted(self.tags.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


class VaultCatalog:
    """A cached scan of the vault; call `facts()` before each capture."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[str, tuple[tuple[int, int], NoteFacts | None]] = {}

    def facts(self) -> VaultFacts:
        s = self.settings
        kind_of = classifier(s)
        titles: dict[str, str] = {}
        title_paths: dict[str, list[str]] = {}
        daemon_titles: set[str] = set()
        tags: Counter[str] = Counter()
        note_tags: dict[str, tuple[str, ...]] = {}
        filed: dict[str, list[str]] = {}
        seen: set[str] = set()
        for path in iter_note_paths(s.vault):
            if len(seen) % 64 == 0:
                pause()  # a scan of a big vault lets requests go first (runtime/foreground.py)
            seen.add(path)
            facts = self._note(path)
            if facts is None:
                continue
            kind = kind_of(path)
            if kind is not None:
                daemon_titles.add(facts.title.casefold())
                if facts.capture_id and kind == "filed":
                    filed.setdefault(facts.capture_id, []).append(path)
            else:
                for name in (facts.title, *facts.aliases):
                    titles.setdefault(name.casefold(), facts.title)
                # A real title wins over another note's alias of the same name.
                titles[facts.title.casefold()] = facts.title
                title_paths.setdefault(facts.title.casefold(), []).append(path)
                own = tuple(dict.fromkeys(t.casefold() for t in facts.tags))
                note_tags[facts.title.casefold()] = note_tags.get(facts.title.casefold(), ()) + own
            tags.update({t.casefold() for t in facts.tags})
        for gone in set(self._cache) - seen:
            del self._cache[gone]
        return VaultFacts(
            titles=titles,
            title_paths={k: tuple(sorted(v)) for k, v in title_paths.items()},
            daemon_titles=frozenset(daemon_titles),
            tags=tags,
            note_tags=note_tags,
            filed={k: tuple(sorted(v)) for k, v in filed.items()},
        )

    def filed_with(self, capture_id: str) -> tuple[str, ...]:
        """Filed notes carrying this capture id, looked up now (only the filed folder is
        read): another daemon on a synced vault may have filed the capture a moment ago."""
        folder = self.settings.folder("filed")
        found = []
        for path in iter_note_paths(self.settings.vault, under=folder):
            facts = self._note(path)
            if facts is not None and facts.capture_id == capture_id:
                found.append(path)
        return tuple(found)

    def _note(self, path: str) -> NoteFacts | None:
        full = self.settings.vault / path
        try:
            st = full.stat()
        except OSError:
            return None
        sig = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == sig:
            return cached[1]
        max_bytes = self.settings.index.max_note_kb * 1024
        try:
            note = read_note(self.settings.vault, path, self.settings.flavor, max_bytes)
        except NoteSkipped as exc:
            log.debug("%s", exc)
            facts = None
        else:
            meta = note.frontmatter
            cid = next((str(meta[k]) for k in CAPTURE_ID_KEYS if meta.get(k)), None)
            facts = NoteFacts(note.title, note.tags, note.aliases, cid)
        self._cache[path] = (sig, facts)
        return facts
