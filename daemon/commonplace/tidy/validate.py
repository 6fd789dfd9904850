"""The program decides: keep only the proposed fields that check out against the vault.

`decide` is pure (proposal, capture, vault facts in; Decision out), so every rule is tested with
plain values. Nothing is silently discarded: every value left out becomes a `Dropped` with a
reason, which the pipeline logs and the CLI prints.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from commonplace.capture.clipping import link_title, only_link, split_clipping
from commonplace.capture.inbox import Capture
from commonplace.tidy import evidence, support, tasks, when
from commonplace.tidy.catalog import VaultFacts
from commonplace.tidy.models import Candidate, Decision, Dropped, Proposal, Todo, TodoProposal
from commonplace.tidy.proposal import MAX_TAGS, MAX_TODOS, TITLE_MAX
from commonplace.vault import logseq_names, markdown

MAX_LINKS = 8
TITLE_MAX_BYTES = 180  # + the date prefix and ' 99.md' stays under 255 bytes
TODO_MAX = 200
TODO_SUPPORT = 0.5  # share of a to-do's content words that must be in the capture
FALLBACK_WORDS = 6
URGENCY_TAGS = frozenset({"urgent", "asap", "important", "priority", "critical", "emergency"})
_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com\d|lpt\d)(?:\..*)?$", re.IGNORECASE)
_UNSAFE = re.compile(r'[*"<>:|?#^\[\]{}%~`$!]')
_TAG = re.compile(r"^[^\W\d_][\w-]{0,29}$")
_TODO_PREFIX = re.compile(r"^(?:[-*+]\s*)?(?:\[[ xX]?\]\s*)?(?:todo\b:?\s*)?", re.IGNORECASE)
# Loose forms the vault parser does not read but a model may write ("due 2026-10-20", "📅 fri").
_DUE_IN_TEXT = re.compile(r"\(?\bdue:*\s*\d{4}-\d{2}-\d{2}\)?|📅\s*\S+|\b(?:DEADLINE|SCHEDULED):")
_HASHTAG = re.compile(r"#(?=\w)")


def decide(
    proposal: Proposal,
    capture: Capture,
    facts: VaultFacts,
    *,
    flavor: str = "obsidian",
    name_format: str = logseq_names.TRIPLE_LOWBAR,
    candidates: Sequence[Candidate] = (),
) -> Decision:
    """`name_format` is the Logseq graph's `:file/name-format` (the flavour "logseq" only);
    `candidates` are the notes the model was shown (they tell two notes of one name apart)."""
    dropped: list[Dropped] = []
    # A clipping (a linked page's text) is someone else's words: never the owner's.
    words, _clip = split_clipping(capture.body)
    own = support.own_words(words)
    link = only_link(words)
    if link is not None:  # a shared link: titled from its shared title or its own words
        title = check_title(link_title(*link), own, dropped)
    else:
        title = check_title(proposal.title, own, dropped)
    if flavor == "logseq":
        title = logseq_title(title, own, dropped, name_format)
    chosen, far = evidence.kept_links(proposal.links, candidates, own, facts)
    dropped += [Dropped("link", title, reason) for title, reason in far]
    links = check_links(chosen, facts, dropped, candidates, flavor)
    tags = check_tags(proposal.tags, own, facts, dropped)
    tags = fitting_tags(tags, own, links, facts, dropped)
    todos = check_todos(proposal.todos, capture, own, dropped)
    return Decision(title, tags, links, todos, tuple(dropped))


# -- title ------------------------------------------------------------------------------------


def clean_title(raw: str) -> str:
    """Letters, digits and plain punctuation only; no control, path or link characters."""
    text = "".join(
        " " if unicodedata.category(ch)[0] in "CZ" else ch
        for ch in unicodedata.normalize("NFC", raw)
    )
    text = _UNSAFE.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip(" .-_'")
    if len(text) > TITLE_MAX:
        cut = text.rfind(" ", 0, TITLE_MAX + 1)
        text = text[: cut if cut > TITLE_MAX // 2 else TITLE_MAX].rstrip(" .-_,;")
    while len(text.encode("utf-8")) > TITLE_MAX_BYTES:  # file names are limited in bytes
        text = text[:-1].rstrip(" .-_,;")
    return text


def fallback_title(words: str) -> str:
    """The capture's first few words, for when the model's title cannot be used."""
    found = re.findall(r"[^\W_]+(?:['’][^\W_]+)*", words)[:FALLBACK_WORDS]
    title = clean_title(" ".join(found))
    return (title[:1].upper() + title[1:]) if title else "Capture"


def check_title(raw: str, own: str, dropped: list[Dropped]) -> str:
    if "/" in raw or "\\" in raw or raw.strip() in (".", ".."):
        dropped.append(Dropped("title", raw, "has path characters; used the capture's first words"))
        return fallback_title(own)
    title = clean_title(raw)
    if not title or _RESERVED.match(title):
        why = "is empty" if not title else "is a reserved file name"
        if raw.strip() or title:
            dropped.append(Dropped("title", raw, f"{why}; used the capture's first words"))
        return fallback_title(own)
    if title != raw.strip():
        dropped.append(Dropped("title", raw, f"shortened or cleaned to {title!r} for a file name"))
    return title


def logseq_title(
    title: str, own: str, dropped: list[Dropped], name_format: str = logseq_names.TRIPLE_LOWBAR
) -> str:
    """A title Logseq reads back from the file name unchanged. Under the `:legacy` file name
    format a '.' is a namespace separator ("v2.1 plan" would become the page "v2/1 plan"), and
    under `:triple-lowbar` '___' is; so those go (vault/logseq_names.py)."""
    if logseq_names.page_name_of_file(title, name_format) == title:
        return title
    spaced = title.replace("___", " ")
    if name_format == logseq_names.LEGACY:
        spaced = spaced.replace(".", " ")
    cleaned = clean_title(spaced)
    if not cleaned or logseq_names.page_name_of_file(cleaned, name_format) != cleaned:
        return fallback_title(own).replace(".", "")
    what = "'.' as a namespace" if name_format == logseq_names.LEGACY else "'___' as a namespace"
    dropped.append(Dropped("title", title, f"Logseq reads {what}; used {cleaned!r}"))
    return cleaned


# -- tags -------------------------------------------------------------------------------------


def _variants(tag: str) -> list[str]:
    """Near-duplicates of a tag that should be written as the vault's existing spelling."""
    out = [
        tag + "s",
        tag + "es",
        tag.replace("_", "-"),
        tag.replace("-", "_"),
        tag.replace("-", ""),
    ]
    if tag.endswith("ies"):
        out.append(tag[:-3] + "y")
    if tag.endswith("es"):
        out.append(tag[:-2])
    if tag.endswith("s"):
        out.append(tag[:-1])
    if tag.endswith("y"):
        out.append(tag[:-1] + "ies")
    return [v for v in out if v != tag]


def normalise_tag(raw: str) -> str:
    return raw.strip().lstrip("#").strip().casefold()


def check_tags(
    raws: Iterable[str], own: str, facts: VaultFacts, dropped: list[Dropped]
) -> tuple[str, ...]:
    kept: list[str] = []
    for raw in raws:
        tag = normalise_tag(raw)
        if not tag:
            dropped.append(Dropped("tag", raw, "is empty"))
            continue
        if re.search(r"\s", tag):
            dropped.append(Dropped("tag", raw, "is not a single word"))
            continue
        if not _TAG.match(tag):
            dropped.append(Dropped("tag", raw, "is not a simple word (letters, digits, '-')"))
            continue
        if tag not in facts.tags:
            near = [v for v in _variants(tag) if v in facts.tags]
            if near:
                tag = max(near, key=lambda v: (facts.tags[v], v))
        in_words = support.support(tag.replace("-", " "), own) > 0
        if tag in URGENCY_TAGS and not in_words:
            dropped.append(Dropped("tag", raw, "the capture's own words do not say so"))
            continue
        if tag not in facts.tags and not in_words:
            dropped.append(Dropped("tag", raw, "is not a vault tag nor a word in the capture"))
            continue
        if tag in kept:
            continue
        if len(kept) == MAX_TAGS:
            dropped.append(Dropped("tag", raw, f"more than {MAX_TAGS} tags"))
            continue
        kept.append(tag)
    return tuple(kept)


def fitting_tags(
    tags: Sequence[str], own: str, links: Sequence[str], facts: VaultFacts, dropped: list[Dropped]
) -> tuple[str, ...]:
    """Only the tags the owner's words or the linked notes speak for (evidence.tag_fits)."""
    kept = []
    for tag in tags:
        if evidence.tag_fits(tag, own, links, facts):
            kept.append(tag)
        else:
            dropped.append(
                Dropped("tag", tag, "neither the capture nor a note it links to says so")
            )
    return tuple(kept)


# -- links ------------------------------------------------------------------------------------


def link_target(raw: str) -> str:
    """'[[Projects/Shed Rebuild#Plan|shed]]' -> 'Shed Rebuild'."""
    return _link_text(raw).rsplit("/", 1)[-1].strip().removesuffix(".md").strip()


def _link_text(raw: str) -> str:
    """'[[Projects/Shed Rebuild#Plan|shed]]' -> 'Projects/Shed Rebuild'."""
    text = raw.strip().removeprefix("[[").removesuffix("]]")
    return text.split("|", 1)[0].split("#", 1)[0].strip()


def _title_key(raw: str, facts: VaultFacts) -> str:
    """The casefolded title a proposed link names: the whole name when a note has it (a
    Logseq namespace page is titled 'Projects/Shed'), else the last part of a path."""
    whole = _link_text(raw).removesuffix(".md").strip().casefold()
    if "/" in whole and (whole in facts.titles or whole in facts.daemon_titles):
        return whole
    return link_target(raw).casefold()


def link_name(
    raw: str, real: str, facts: VaultFacts, candidates: Sequence[Candidate], flavor: str
) -> str:
    """What goes between the brackets: the note's title, unless other notes have that name.

    Obsidian opens `[[Templates]]` as one of the notes named Templates, whichever the capture
    was about (the Obsidian Help vault has two), and itself links such a note by its path. So
    does tidy: the path the model wrote, else the note it was shown under that name. A Logseq
    page's name is the page (one per name)."""
    paths = facts.title_paths.get(real.casefold(), ())
    if flavor == "logseq" or len(paths) < 2:
        return real
    written = _link_text(raw).removesuffix(".md").strip().casefold()
    shown = [c.path for c in candidates if c.title.casefold() == real.casefold()]
    for path in [p for p in paths if p.removesuffix(".md").casefold() == written] + shown:
        if path in paths:
            return path.removesuffix(".md")
    return real


def check_links(
    raws: Iterable[str],
    facts: VaultFacts,
    dropped: list[Dropped],
    candidates: Sequence[Candidate] = (),
    flavor: str = "obsidian",
) -> tuple[str, ...]:
    kept: list[str] = []
    for raw in raws:
        key = _title_key(raw, facts)
        real = facts.titles.get(key)
        if real is None:
            why = (
                "is a note the daemon writes (Inbox, Filed, Ask, Digests)"
                if key in facts.daemon_titles
                else "no note has that title"
            )
            dropped.append(Dropped("link", raw, why))
            continue
        real = link_name(raw, real, facts, candidates, flavor)
        if real in kept:
            continue
        if len(kept) == MAX_LINKS:
            dropped.append(Dropped("link", raw, f"more than {MAX_LINKS} links"))
            continue
        kept.append(real)
    return tuple(kept)


# -- to-dos -----------------------------------------------------------------------------------


def clean_todo_text(raw: str) -> str:
    text = re.sub(r"\s+", " ", raw).strip()
    text = _TODO_PREFIX.sub("", text, count=1)
    text = _DUE_IN_TEXT.sub("", markdown.strip_due_markers(text))
    text = _HASHTAG.sub("", text)  # a '#word' in a to-do would become a tag on the note
    text = text.replace("[[", "").replace("]]", "")
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    text = re.sub(r"\s+", " ", text).strip(" -")
    return text[:TODO_MAX].rstrip()


def check_todos(
    raws: Iterable[TodoProposal], capture: Capture, own: str, dropped: list[Dropped]
) -> tuple[Todo, ...]:
    texts: list[tuple[str, TodoProposal]] = []
    for item in raws:
        raw = item.text
        text = clean_todo_text(raw)
        reason = todo_problem(text, capture.body, own, capture.via)  # never from a clipping
        if reason:
            dropped.append(Dropped("todo", raw, reason))
            continue
        if any(t.casefold() == text.casefold() for t, _ in texts):
            continue
        if len(texts) == MAX_TODOS:
            dropped.append(Dropped("todo", raw, f"more than {MAX_TODOS} to-dos"))
            continue
        texts.append((text, item))
    kept: list[Todo] = []
    for text, item in texts:
        others = [t for t, _ in texts if t != text]
        said = item.when if item.when and item.when.strip() else item.due
        due = when.due_for(text, said, others, own, capture.captured)
        if due.problem:
            dropped.append(Dropped("due", str(said), f"{due.problem} (to-do {text!r} kept)"))
        kept.append(Todo(text, due.day))
    return tuple(kept)


def todo_problem(text: str, body: str, own: str, via: str = "") -> str | None:
    """Why a to-do cannot be kept, or None."""
    if not text:
        return "is empty"
    if support.moves_money(text):
        return "asks to move money"
    if support.shares_credentials(text):
        return "asks to send passwords or other credentials"
    if support.support(text, own) >= TODO_SUPPORT:
        return tasks.task_problem(text, own, via)
    if support.support(text, body) >= TODO_SUPPORT:
        return "only text addressed to an AI asks for it"
    return "not supported by the capture's words"
