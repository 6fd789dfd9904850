"""The hint prompt for dictation: names of the people and places in the vault.

Names are the words dictation gets wrong ("Zoe Martin" for Zoë Martín, "jewson" for Jewson),
and whisper.cpp spells them right when they appear in its initial prompt. The names come from
two places: titles (and aliases) of notes in folders such as People/ or Places/, which the user
chose to name, and words written with a capital in the middle of a sentence often enough to be
names. Computed from the files, never from a model.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from commonplace.vault import NoteSkipped, iter_note_paths, read_note
from commonplace.vault.markdown import prose_lines

NAME_FOLDERS = {"people", "person", "persons", "contacts", "places", "team"}
MAX_PROMPT_CHARS = 600  # whisper keeps about 224 prompt tokens; stay well inside

# Capitalised words that are not names however often they appear mid-sentence.
_COMMON = {
    "I", "I'm", "I've", "I'll", "I'd", "OK", "TODO", "The", "A", "An",
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December", "Mum", "Dad",
    "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
}  # fmt: skip
_WORD = re.compile(r"(?<![\w\[#/])([A-Z][\w'’-]*[a-z][\w'’-]*)")
_SENTENCE_END = re.compile(r"[.!?:;\-*>#|(\"“]\s*$")
_LINKS = re.compile(r"!?\[\[[^\]]*\]\]|\]\([^)]*\)|https?://\S+")
_LOWER = re.compile(r"\b[a-z][\w'’-]*")


def name_hint(vault: Path, *, flavor: str = "obsidian", limit: int = 60) -> str:
    """The initial prompt for whisper: 'Names: A, B, C.' or '' when the vault has none."""
    names = vault_names(vault, flavor=flavor, limit=limit)
    if not names:
        return ""
    prompt = "Names: "
    for name in names:
        piece = name if prompt == "Names: " else f", {name}"
        if len(prompt) + len(piece) + 1 > MAX_PROMPT_CHARS:
            break
        prompt += piece
    return prompt + "."


def vault_names(vault: Path, *, flavor: str = "obsidian", limit: int = 60) -> list[str]:
    """Named notes first (in path order), then the most frequent capitalised words."""
    chosen: dict[str, None] = {}
    counts: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    for path in iter_note_paths(vault):
        try:
            st = (vault / path).stat()
        except OSError:
            continue
        names = _note_names(str(vault), path, flavor, st.st_mtime_ns, st.st_size)
        if names is None:
            continue
        if _in_name_folder(path):
            for name in names.own:
                chosen.setdefault(name, None)
        counts.update(names.capitalised)
        lower.update(names.lower)
    known = {part for name in chosen for part in name.split()}
    for word, n in counts.most_common():
        if n < 2 or len(chosen) >= limit:
            break
        # A word also written in lower case ("Plan", "plan") is an ordinary word, not a name.
        if word not in known and not lower[word.lower()]:
            chosen.setdefault(word, None)
    return list(chosen)[:limit]


@dataclass(frozen=True)
class _NoteNames:
    own: tuple[str, ...]  # the note's title and aliases
    capitalised: tuple[str, ...]
    lower: tuple[str, ...]


@lru_cache(maxsize=1 << 16)
def _note_names(vault: str, path: str, flavor: str, mtime_ns: int, size: int) -> _NoteNames | None:
    """One note's name material, cached by its modified time and size, so that refreshing the
    hint reads only the notes that changed, not the whole vault."""
    try:
        note = read_note(Path(vault), path, flavor)
    except NoteSkipped:
        return None
    return _NoteNames(
        (note.title, *note.aliases),
        tuple(capitalised_words(note.body)),
        tuple(_LOWER.findall(note.body)),
    )


def capitalised_words(text: str) -> Iterable[str]:
    """Words with a capital that do not start a sentence, line or list item: likely names."""
    for _, raw in prose_lines(text):
        line = _LINKS.sub(" | ", raw)  # link targets are titles, not words the user said
        for match in _WORD.finditer(line):
            word = match.group(1).rstrip("'’-")
            before = line[: match.start()]
            if not before.strip() or _SENTENCE_END.search(before) or word in _COMMON:
                continue
            if word.endswith(("'s", "’s")):
                word = word[:-2]
            yield word


def _in_name_folder(path: str) -> bool:
    return any(part.lower() in NAME_FOLDERS for part in PurePosixPath(path).parts[:-1])
