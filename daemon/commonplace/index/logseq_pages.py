"""A Logseq graph's page names and blocks, kept in step in the manifest at a reconciliation.

Apart from the index (indexer.py) because neither touches the vectors or the keyword index:
the journal settings decide which notes' titles are made again, and an index made before the
manifest kept Logseq blocks reads each page once for them.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable

from commonplace.attachments import kinds as attachment_kinds
from commonplace.config import Settings
from commonplace.index.batch import BATCH_FILES
from commonplace.index.manifest import FileEntry, Manifest
from commonplace.index.store import Stores
from commonplace.runtime.foreground import pause
from commonplace.vault import NoteSkipped, exclusions, journals, read_note
from commonplace.vault.blockrefs import note_blocks
from commonplace.vault.notes import title_from_path, title_property

log = logging.getLogger(__name__)

JOURNALS_META = "journal_names"  # the Logseq journal settings the stored titles were made with
BLOCKS_META, BLOCKS = "blocks", "1"  # the manifest holds every indexed Logseq page's blocks


def journal_titles(
    settings: Settings, manifest: Manifest, entries: dict[str, FileEntry]
) -> tuple[str, list[str]]:
    """The graph's Logseq journal settings now (vault/journals.py), as stored in the
    manifest, and the indexed notes whose title they change: set another
    `:journal/page-title-format` (or `:file/name-format`) and the stored titles and dates
    of the notes it renames (what search shows, Ask cites and tidy links to) are made
    again, without reading any other note."""
    if settings.flavor != "logseq":
        return "", []
    now = journals.journal_names(settings.vault)
    stored = manifest.get_meta(JOURNALS_META)
    if stored == now.signature:
        return now.signature, []
    before = journals.JournalNames.from_signature(stored) if stored else None

    # A page's `title::` names it instead of its file name (`title:: 2026-11-30` makes any
    # page that day's journal), so the files are looked at for one: only when the settings
    # changed, which an owner does about once.
    limit = settings.index.max_note_kb * 1024
    titled = {
        path: title
        for path, entry in entries.items()
        if not entry.skipped
        and not attachment_kinds.is_attachment(path)
        and (title := title_property(settings.vault, path, limit)) is not None
    }

    def named(names: journals.JournalNames | None, path: str) -> tuple[str, dt.date | None]:
        """The page name and journal day a note's title or file name gives; with no
        settings stored (an index made before journals were named) that name, no day."""
        if names is None:
            return titled.get(path) or title_from_path(path, "logseq"), None
        name = titled.get(path) or title_from_path(path, "logseq", names.name_format)
        return names.page_name(name, path), names.day_of(name, path)

    notes = [p for p in entries if not attachment_kinds.is_attachment(p)]
    changed = [p for p in notes if named(now, p) != named(before, p)]
    if changed:
        log.info(
            "Logseq's page names are read anew (journal pages %r, :%s file names; %s): "
            "%d notes whose name changed are read again",
            now.title_format,
            now.name_format,
            exclusions.LOGSEQ_SETTINGS,
            len(changed),
        )
    return now.signature, changed


def read_blocks_once(
    settings: Settings,
    stores: Stores,
    read_now: set[str],
    io: threading.Lock,
    closed: Callable[[], bool],
) -> None:
    """Keep the manifest's Logseq blocks (vault/blockrefs.py) in step with the flavour. An
    index made before they were kept reads each indexed page once for them, here, at a
    reconciliation: without it a page nobody edits would never have its blocks, and every
    ref to them would read as unknown. Nothing is chunked, embedded or written to the
    keyword index again (`read_now`: pages this reconciliation read already). An index no
    longer read as Logseq drops them, so that reading it as Logseq again fills them anew."""
    st = stores
    want = BLOCKS if settings.flavor == "logseq" else ""
    if not st.keywords.writable or (st.manifest.get_meta(BLOCKS_META) or "") == want:
        return
    if want:
        limit = settings.index.max_note_kb * 1024
        todo = [
            p
            for p, e in st.manifest.all().items()
            if not e.skipped and p not in read_now and not attachment_kinds.is_attachment(p)
        ]
        if todo:
            log.info("reading %d Logseq pages once for their blocks' text", len(todo))
        for i in range(0, len(todo), BATCH_FILES):
            found: list[tuple[str, dict[str, str]]] = []
            for path in todo[i : i + BATCH_FILES]:
                pause()  # a request is being answered: let it have the interpreter
                try:
                    note = read_note(settings.vault, path, "logseq", max_bytes=limit)
                except NoteSkipped:  # gone or unusable now: the next scan deals with it
                    continue
                found.append((path, note_blocks(note.text)))
            with io:
                if closed():
                    return
                st.manifest.write_blocks(found, [])
    with io:
        if not closed():
            if not want:
                st.manifest.clear_blocks()
            st.manifest.set_meta(BLOCKS_META, want)
