"""Links in captures, and the clipping of a linked page's text kept below the owner's words.

A capture that is only a link (perhaps with the title the sharing app gave) is filed with the
link, titled from the shared title or the link's own words (`link_title`). When the owner asks
for it (a setting, or the page's per-capture toggle), the page's main text is fetched
(pagefetch.py) and extracted with trafilatura, then kept in the capture as a clipping: below the
owner's words, every line quoted, and opened by a marker line with its link and the day it was
fetched. The owner's words above it are copied exactly (principle 2); tidy treats the clipping as
someone else's words (`split_clipping`, and the tidy prompt's rule): no to-do, tag or order is
taken from it.
"""

from __future__ import annotations

import re
from datetime import date
from urllib.parse import unquote, urlsplit

CLIP_MARK = "> Clipped from "
_MARK_LINE = re.compile(r"^> Clipped from <?(\S+?)>? on (\d{4}-\d{2}-\d{2})")
_URL = re.compile(r"^<?(https?://\S+?)>?$", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"')\]]+", re.IGNORECASE)
MAX_CLIP_CHARS = 20_000  # of the page's text kept: a long article's first pages
_ID_LIKE = re.compile(r"^(?:\d{5,}|[0-9a-f]{8,}|[A-Za-z0-9]{12,})$")


def only_link(words: str) -> tuple[str, str] | None:
    """(link, shared title) when the words are one http(s) link, alone or with one other line
    (the title a sharing app sends); None for anything else, which the model titles."""
    lines = [line.strip() for line in words.strip().splitlines() if line.strip()]
    links = [m.group(1) for line in lines if (m := _URL.match(line))]
    if len(links) != 1 or len(lines) > 2:
        return None
    others = [line for line in lines if not _URL.match(line)]
    return links[0], (others[0] if others else "")


def first_link(words: str) -> str:
    """The first http(s) link in the words, "" when there is none (Android shares a link in
    `text`, often after the page's title)."""
    match = _URL_IN_TEXT.search(words)
    return match.group(0).rstrip(".,;:!?") if match else ""


def link_title(link: str, shared_title: str = "") -> str:
    """A title for a link-only capture: the shared title, else the words of the link's last
    meaningful path part ('/2026/05/how-to-prune-roses.html' -> 'How to prune roses'), else its
    site's name."""
    if shared_title.strip():
        return shared_title.strip()
    parts = urlsplit(link)
    for segment in reversed([s for s in parts.path.split("/") if s]):
        segment = re.sub(r"\.(?:html?|php|aspx?|jsp)$", "", unquote(segment), flags=re.IGNORECASE)
        words = [w for w in re.split(r"[-_+.\s]+", segment) if w and not _ID_LIKE.match(w)]
        if words and any(w.isalpha() for w in words):
            text = " ".join(words)
            return text[:1].upper() + text[1:]
    host = (parts.hostname or "").removeprefix("www.")
    return host or "Link"


def split_clipping(body: str) -> tuple[str, str]:
    """(the owner's words, the clipping): everything from the first marker line down is the
    clipping; a capture without one is all the owner's words."""
    at = body.find("\n" + CLIP_MARK)
    if body.startswith(CLIP_MARK):
        return "", body
    if at < 0:
        return body, ""
    return body[: at + 1], body[at + 1 :]


def clipping_block(link: str, day: date, text: str) -> str:
    """The clipping as it goes into the capture: a marker line, then the text, quoted."""
    kept = text.strip()
    if len(kept) > MAX_CLIP_CHARS:
        cut = kept.rfind("\n", 0, MAX_CLIP_CHARS)
        kept = kept[: cut if cut > MAX_CLIP_CHARS // 2 else MAX_CLIP_CHARS].rstrip() + "\n[…]"
    quoted = "\n".join(f"> {line}".rstrip() for line in kept.splitlines())
    return (
        f"{CLIP_MARK}<{link}> on {day.isoformat()} (the page's text, not my words):\n>\n{quoted}\n"
    )


def with_clipping(words: str, block: str) -> str:
    """The owner's words exactly as given (their own line ends kept), a blank line, then the
    clipping."""
    if not words.strip():
        return block
    return words + ("\n" if words.endswith("\n") else "\n\n") + block


def extract_text(html: str, url: str) -> str:
    """The page's main text (trafilatura: the article without menus, ads and comments); "" when
    it finds none. Imported here, not at the top: the daemon starts without it."""
    import trafilatura

    text = trafilatura.extract(
        html,
        url=url,
        include_comments=False,
        include_tables=False,
        include_links=False,
        include_images=False,
        favor_precision=True,
        # Not deduplicate=True: its cache lives as long as the process, so the same page shared
        # twice (or two pages with paragraphs in common) came back with no text the second time.
        deduplicate=False,
    )
    return (text or "").strip()


def clipping_marks(body: str) -> tuple[str, str] | None:
    """(link, day) of a capture's clipping, or None."""
    _, clip = split_clipping(body)
    match = _MARK_LINE.match(clip)
    return (match.group(1), match.group(2)) if match else None
