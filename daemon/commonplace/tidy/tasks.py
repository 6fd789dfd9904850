"""Is a proposed to-do a task the owner wrote for themselves? Pure text checks.

A small model turns sentences into to-dos (issue 43: "Shes off 2-6 Nov, visiting her family in
Valencia", "Launch the Nettle Pay Cert"). A to-do is kept only where a sentence it comes from
reads as a task of the owner's:

- it says so: "need to", "remind me to", "should", "todo:", "still to do", "don't forget", ...;
- it sets a deadline: a day after "by", "before", "until" or "due" ("by friday");
- or a clause of it opens with a verb of the kind a person orders themselves about ("send them
  to her tomorrow", "and take the old mower to the tip", "book the dentist").

News ("launch is slipping"), other people's plans ("steering will rubber stamp it"), events
("delivery thurs 29th"), ideas and things done name none of these. Words shared from another
app (`via: share` or `shortcut`: a newsletter, a message) are someone else's, whatever they
say: no to-do comes from them (DESIGN.md principle 3).
"""

from __future__ import annotations

import re
from datetime import date

from commonplace.basics.daywords import find_days
from commonplace.tidy import support

SHARED_VIA = frozenset({"share", "shortcut"})
_ANY_DAY = date(2000, 1, 3)  # only whether a deadline is named matters here, not its day
_CUES = re.compile(
    r"\b(?:needs?|needed|have to|has to|had to|got to|gotta|must|should|ought to|"
    r"remind(?:s|er)?|todo|to-?dos?|to do|don'?t forget|do not forget|remember to|make sure|"
    r"i'?ll|i will|i'?m going to|i am going to|gonna|let'?s|please|pls|asap)\b",
    re.IGNORECASE,
)
_DEADLINE_LEAD = re.compile(r"\b(?:by|before|until|till|til|due)\s*$", re.IGNORECASE)
_CLAUSE = re.compile(
    r"\s*(?:[,;:()\u2014\u2013]|\s-\s|\band\b|\balso\b|\bthen\b|\bso\b|\bbut\b)\s*"
)
_FILLER_TEXT = """
    um uh er erm oh ok okay right so and also then just still now pls please quickly
"""
_FILLER = frozenset(_FILLER_TEXT.split())
# Verbs a person orders themselves about with; a clause opening with one reads as a task.
_TASK_VERB_TEXT = """
    add apply arrange ask bake book bring buy call cancel change check chase clean clear
    collect confirm contact cook email e-mail fetch file fill find finish fix follow get
    give hand invite learn look mail make message move order organise organize pack paint
    pay phone pick plan plant post practise practice prepare print put read renew repair
    replace reply research reserve return review ring schedule sell send set sign sort
    submit take talk tell text tidy top try update visit wash water write
"""
TASK_VERBS = frozenset(_TASK_VERB_TEXT.split())


def sentences_of(todo: str, own: str) -> list[str]:
    """The owner's sentences the to-do's words come from: those sharing the most of them, every
    other sharing at least two, and any holding the to-do's opening verb ("Send Maya the
    slides" comes from "maya ... wants my 5 research slides" AND "send them to her tomorrow")."""
    wanted = support.significant_words(todo)
    first = re.findall(r"[^\W\d_]+", todo.casefold())[:1]
    verb = support.stem(first[0]) if first and first[0] in TASK_VERBS else None
    scored = []
    for s in support.sentences(own):
        words = support.significant_words(s)
        scored.append((len(wanted & words), verb is not None and verb in words, s))
    best = max((n for n, _, _ in scored), default=0)
    return [s for n, v, s in scored if v or (n and (n == best or n >= 2))]


def reads_as_task(sentence: str) -> bool:
    if _CUES.search(sentence):
        return True
    for day in find_days(sentence, _ANY_DAY):
        said = sentence[: day.start] + day.words.split()[0]  # "by friday", or "by the 30th"
        if _DEADLINE_LEAD.search(said) or _DEADLINE_LEAD.search(sentence[: day.start]):
            return True
    for clause in _CLAUSE.split(sentence):
        words = [w.casefold() for w in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)*", clause)]
        while words and words[0] in _FILLER:
            words.pop(0)
        if words and words[0] in TASK_VERBS:
            return True
    return False


def task_problem(todo: str, own: str, via: str) -> str | None:
    """Why the to-do is not the owner's own task, or None."""
    if via.casefold() in SHARED_VIA:
        return "the capture was shared from another app: someone else's words"
    if not any(reads_as_task(s) for s in sentences_of(todo, own)):
        return "the capture's words state it but do not ask for it"
    return None
