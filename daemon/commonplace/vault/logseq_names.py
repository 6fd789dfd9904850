"""How Logseq names a page after its file: `pages/a___b.md` is the page "a/b", or is it?

It depends on the graph's `:file/name-format` in `logseq/config.edn` (Logseq 0.10's file
graphs: graph-parser util.cljs `title-parsing`, config from state.cljs `get-filename-format`):

- `:triple-lowbar` (what Logseq writes into every graph made since 0.8.9): `___` is the
  namespace separator `/`, then each `%XX` is decoded on its own (so `%3F` is `?` and `%2F`
  is `/`, while the bytes of a percent-encoded non-ASCII letter stay as they are written), and
  empty namespace parts are dropped (`a//b` is `a/b`).
- `:legacy` (a config.edn without the key, as graphs made before 0.8.9 have): every `.` is a
  namespace separator (`v2.1 plan.md` is the page "v2/1 plan"), then the whole name is
  URL-decoded as JavaScript's decodeURIComponent does, and kept as it is if that fails (a `%`
  that starts no `%XX`). `___` means nothing there.

A `title::` property overrides the file name in both (notes.parse_note reads it). A graph with
no config.edn at all gets Logseq's template, hence `:triple-lowbar`, once Logseq opens it.

The folder does not matter: Logseq reads every file's name this way (graph-parser extract.cljc
get-page-name applies title-parsing to the file's name wherever it is), so `a___b.md` is "a/b"
in pages/, in a `:pages-directory` of the owner's choosing and in any other folder alike.
"""

from __future__ import annotations

import re
import urllib.parse

TRIPLE_LOWBAR = "triple-lowbar"
LEGACY = "legacy"
FORMATS = (TRIPLE_LOWBAR, LEGACY)

_ONE_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
_ONLY_ESCAPES = re.compile(r"(?:[^%]|%[0-9a-fA-F]{2})*", re.DOTALL)
# `%00`, `%0A`... stay as written: Logseq decodes them, but a NUL or a line break in a page
# name would go into every link, digest line and Ask source that names the page (a NUL makes
# the note it is written into unreadable as text).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def page_name_of_file(stem: str, name_format: str = TRIPLE_LOWBAR) -> str:
    """The page name Logseq reads from a file's name without its extension."""
    if name_format == LEGACY:
        dotted = stem.replace(".", "/")
        decoded = decode_uri_component(dotted)
        return dotted if decoded is None or _CONTROL.search(decoded) else decoded
    name = _ONE_ESCAPE.sub(_decode_one, stem.replace("___", "/"))
    return "/".join(part for part in name.split("/") if part)


def decode_uri_component(text: str) -> str | None:
    """JavaScript's decodeURIComponent: None where it would throw (a `%` not followed by two
    hex digits, or escapes that are not UTF-8)."""
    if not _ONLY_ESCAPES.fullmatch(text):
        return None
    try:
        return urllib.parse.unquote(text, errors="strict")
    except UnicodeDecodeError:
        return None


def _decode_one(match: re.Match[str]) -> str:
    """One `%XX` alone, as Logseq decodes it: only an ASCII byte decodes by itself (a control
    character is kept as written: see _CONTROL)."""
    code = int(match.group(0)[1:], 16)
    return chr(code) if 0x20 <= code < 0x7F else match.group(0)


def read_format(value: str | None) -> str:
    """The name format a config.edn keyword value (`:legacy`, `:triple-lowbar`) stands for;
    a missing key is `:legacy`, as in Logseq, and so is a value Logseq does not know."""
    return TRIPLE_LOWBAR if value == TRIPLE_LOWBAR else LEGACY
