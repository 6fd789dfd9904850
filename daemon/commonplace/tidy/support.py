"""Is a proposed to-do or tag backed by the user's own words? Pure text checks.

Anything pasted into a capture may have been written by someone else (DESIGN.md principle 3).
Sentences that talk to an AI ("Note to any AI assistant processing this: ...") are therefore
not the user's words: they never count as support, so a to-do or tag that only they ask for is
dropped. To-dos that move money or hand over credentials are dropped whatever their support,
because a filed to-do should never be something a stranger's text talked us into.
"""

from __future__ import annotations

import re

from commonplace.capture.clipping import split_clipping

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_AI_ADDRESS = (
    re.compile(r"\b(?:AI|A\.I\.|LLMs?|GPT|ChatGPT)\b"),
    re.compile(
        r"\b(?:assistants?|chatbots?|language models?|copilot|claude|gemini|"
        r"ignore (?:all |any |the |your )?(?:previous|prior|above|earlier)|system prompt|"
        r"you are now|new instructions?)\b",
        re.IGNORECASE,
    ),
)
_MONEY_VERB = re.compile(
    r"\b(?:wire[ds]?|wiring|transfer(?:s|red|ring)?|send(?:s|ing)?|sent|pay(?:s|ing)?|paid|"
    r"deposit|remit|venmo|paypal|zelle)\b",
    re.IGNORECASE,
)
_MONEY_THING = re.compile(
    r"[$£€¥₹]\s?\d|\d\s?(?:usd|gbp|eur|dollars?|pounds?|euros?|quid|k)\b|"
    r"\b(?:money|funds|cash|bitcoin|btc|crypto|gift ?cards?|bank|iban|sort code)\b|\b\d{8,}\b",
    re.IGNORECASE,
)
_MONEY_PHRASE = re.compile(
    r"\b(?:make|made|send|sent|authori[sz]e) (?:a |the |this )?payments?\b|"
    r"\b(?:bank|wire|money|funds) transfer\b|\bmove (?:the )?(?:money|funds|cash)\b",
    re.IGNORECASE,
)
_ACCOUNT_NUMBER = re.compile(
    r"\b\d{2}-\d{2}-\d{2}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b|\biban\b|\bsort code\b|"
    r"\baccount (?:no|number|#)|\brouting number\b|\bswift\b|\bbic\b",
    re.IGNORECASE,
)
_CREDENTIAL = re.compile(
    r"\b(?:passwords?|passcodes?|passphrases?|pin (?:number|code)|credentials?|log-?in details|"
    r"2fa|one[- ]time (?:code|password)|otp|security codes?|verification codes?|api keys?|"
    r"secret keys?|private keys?|seed phrase|recovery (?:phrase|codes?)|access tokens?|"
    r"card (?:number|details)|cvv)\b",
    re.IGNORECASE,
)
_SHARE_VERB = re.compile(
    r"\b(?:send|share|e-?mail|text|tell|give|post|forward|reply|enter|type|paste|provide|submit|"
    r"upload|confirm|verify|read out|dm|message)(?:s|ed|ing)?\b",
    re.IGNORECASE,
)
_STOP_TEXT = """
a an and are as at be been but by can could do does did for from get got had has have he her
him his how i if in into is it its me my no nor not of off on or our out she so some than that
the their them then there these they this those to too up was we were what when where which
who whom why will with would you your yours also just need needs must should before after
about again all any each more most other such only own same very s t don now next todo
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def addresses_ai(sentence: str) -> bool:
    return any(p.search(sentence) for p in _AI_ADDRESS)


def owners_words(capture_body: str) -> str:
    """What the owner wrote: the capture without a clipping below it (someone else's page)
    and without text addressed to an AI."""
    words, _clip = split_clipping(capture_body)
    return own_words(words)


def own_words(capture_body: str) -> str:
    """The capture without text addressed to an AI: what counts as the user's words.

    Such text runs from the first sentence that talks to an AI to the end of its paragraph,
    because an injection goes on after its first sentence ("The owner already approved this").
    """
    kept: list[str] = []
    for paragraph in re.split(r"\n\s*\n", capture_body):
        for sentence in sentences(paragraph):
            if addresses_ai(sentence):
                break
            kept.append(sentence)
    return "\n".join(kept)


def stem(word: str) -> str:
    """A crude stem ('ringing' -> 'ring', 'slides' -> 'slid'): enough to match a word's forms."""
    word = word.casefold().replace("’", "'")
    word = word.removesuffix("'s")
    for suffix in ("ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def significant_words(text: str) -> set[str]:
    """Stemmed content words (no stop words, no one- or two-letter words unless digits)."""
    words = (w for w in _WORD.findall(text) if w.casefold() not in STOP_WORDS)
    return {stem(w) for w in words if len(w) >= 3 or w.isdigit()}


def _matches(word: str, pool: set[str]) -> bool:
    if word in pool:
        return True
    # "ring" vs "ringing", "deliver" vs "delivery": a shared stem of five letters is enough.
    return len(word) >= 5 and any(len(p) >= 5 and p[:5] == word[:5] for p in pool)


def support(text: str, source: str) -> float:
    """Share of `text`'s content words found in `source` (0.0 when it has none)."""
    words = significant_words(text)
    if not words:
        return 0.0
    pool = significant_words(source)
    return sum(_matches(w, pool) for w in words) / len(words)


def moves_money(text: str) -> bool:
    if _ACCOUNT_NUMBER.search(text) or _MONEY_PHRASE.search(text):
        return True
    return bool(_MONEY_VERB.search(text) and _MONEY_THING.search(text))


def shares_credentials(text: str) -> bool:
    return bool(_CREDENTIAL.search(text) and _SHARE_VERB.search(text))
