"""The vault as files: notes, their parts, chunks, and safe writes.

May import: basics.
"""

from commonplace.vault.atomic import (
    FileChanged,
    VaultBusy,
    WriteTrouble,
    atomic_write,
    file_hash,
    os_error_of,
    remove_file,
    replace_file,
    wait_for_git,
    write_trouble,
)
from commonplace.vault.chunks import Chunk, estimate_tokens, split_into_chunks
from commonplace.vault.files import FileRefused, entry_problem, is_regular_file, read_file
from commonplace.vault.layout import fit_name, in_folder, is_ignored, iter_note_paths
from commonplace.vault.markdown import Todo
from commonplace.vault.notes import Note, NoteSkipped, content_hash, parse_note, read_note

__all__ = [
    "Chunk",
    "FileChanged",
    "FileRefused",
    "Note",
    "NoteSkipped",
    "Todo",
    "VaultBusy",
    "WriteTrouble",
    "atomic_write",
    "content_hash",
    "entry_problem",
    "estimate_tokens",
    "file_hash",
    "fit_name",
    "in_folder",
    "is_ignored",
    "is_regular_file",
    "iter_note_paths",
    "os_error_of",
    "parse_note",
    "read_file",
    "read_note",
    "remove_file",
    "replace_file",
    "split_into_chunks",
    "wait_for_git",
    "write_trouble",
]
