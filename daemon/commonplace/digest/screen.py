"""The screen: every sentence the model writes above the lists is checked against them, and a
sentence that claims what the lists do not hold is left out of the note.

The lists are the record; the sentences are a small model's reading of titles, links and
to-dos, and it misreads them in ways no date, number or name gives away: a to-do no list holds
("sending emails to friends"), an undated to-do named among those "due soonest", a week
"mostly about" a note with two captures of twenty, "15 notes" for twenty. So each sentence is
read in parts (where it joins things: commas, "and", "including") and checked the way the
program computes the lists:

- every date, number and name is one the model was sent, and no open to-do is said done;
- every part is about something the model was sent: at least half of its words (leaving out
  the words any sentence about a week of notes uses) come from one to-do, title or linked note;
- a count ("20 notes", "three overdue to-dos") is the count the lists give;
- a claim of order is true of the lists: the to-dos said to be due soonest are the earliest
  (an undated one never is), the notes the week was "mostly" about are the busiest;
- a to-do said to be overdue, due this week, next week, on a weekday or a date, or undated, is.

The checks are rough in one direction on purpose: a sentence they pass can still be wrong in
ways only meaning shows (a person grades every sentence in the evals), but a sentence they
stop has said something the lists do not say. Pure functions: the facts come from the
DigestData and the data block the model was sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime

from commonplace.basics.dates import MONTHS
from commonplace.digest.models import DigestData, FiledCapture, OpenTodo
from commonplace.digest.specifics import unsupported_specifics
from commonplace.digest.week import Week
from commonplace.digest.words import (
    WEEKDAYS,
    dates,
    fold,
    number_value,
    parts,
    stem,
    stems,
    without_dates,
    words,
)

# Words any sentence about a week of notes uses, naming no thing in it: they neither back a
# part nor count against it.
_GLUE_TEXT = """a an the this that these those there here it its you your yourself i me my we
    our they their them he she his her one ones who which what when where how why is are was
    were be been being am has have had having do does did and or but so also too as well plus
    both either neither nor not no none all every each any some several many much more most
    mostly mainly largely chiefly primarily few lot lots plenty number of in on at by for from
    to with without about into onto over under after before during until since between among
    around across through up down out off than then just only still even yet again already
    soon sooner soonest earliest latest first second third last next later week weekly
    weekend day days today tonight tomorrow yesterday time times month note notes noted
    capture captures captured wrote written write filed file logged recorded added jotted
    kept keep made make got get went go going came come spent worked work focused focus
    covered touched included include including such like to-do to-dos todo todos task tasks
    item items thing things job jobs list lists entry entries reminder reminders open due
    overdue pending outstanding upcoming coming ahead remaining remain rest left need needs
    needed remember forget don't should must will would can could may might link links linked
    related topic topics theme themes busy busiest quiet varied mix range different various
    other others another urgent pressing important priority priorities immediate scheduled
    set date dates dated undated new follow followed along plan planned total altogether
    nothing"""
_WEEK_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS)
GLUE = frozenset(stem(w) for w in _GLUE_TEXT.split()) | frozenset(stem(w) for w in _WEEK_WORDS)
_STOP_TEXT = "a an the of to for from in on at by with and or"
_STOP = frozenset(_STOP_TEXT.split())
_TITLE_SKIP_TEXT = "now again just very some"
_TITLE_SKIP = _STOP | frozenset(_TITLE_SKIP_TEXT.split())
_TITLE_JOIN = re.compile(r"\s+(?:and|&)\s+|\s*[,;]\s*")

# Claims of order and of time. Each is a pattern on the folded sentence.
_SOONEST = re.compile(
    r"\b(soonest|earliest|most (?:urgent|pressing|immediate)|first due|due first|"
    r"due next(?! (?:week|seven|7|month|few))|"
    r"next due|top priorit(?:y|ies)|closest deadlines?|nearest deadlines?)\b"
)
_LATEST = re.compile(r"\b(due (?:last|latest|furthest)|(?:last|latest|furthest) due)\b")
_RECENT = re.compile(
    r"\b(?:most recent(?:ly)?|latest|newest|last)\s+(?:\w+\s+)?(?:captures?|notes?|entries)\b"
)
_MOST = re.compile(r"\b(most|mostly|mainly|largely|chiefly|primarily|busiest)\b")
_NOT_NOTES = re.compile(
    r"\bmost (?:urgent|pressing|immediate|important|recent)\b|\bmost of (?:the|your|these) "
    r"(?:\w+ )?(?:to-?dos?|tasks?)\b"
)
_UNDATED = r"no (?:due )?date|undated|without (?:a )?(?:due )?date|no deadline|any ?time|whenever"
_NEXT_WEEK = r"next week|coming week|week ahead|upcoming week|next (?:seven|7) days|days ahead"
_THIS_WEEK = r"this week|later this week|end of the week|this weekend"
_OVERDUE = r"overdue|past due|late|behind|already due|was due|were due|missed"
_PLACEMENTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rf"\b({words})\b"))
    for name, words in (
        ("undated", _UNDATED),
        ("next week", _NEXT_WEEK),
        ("this week", _THIS_WEEK),
        ("overdue", _OVERDUE),
    )
)
_DUE_WORD = re.compile(r"\b(due|by|before|scheduled|deadlines?|later)\b")
_WEEKDAY_DUE = re.compile(
    r"\b(?:due|by|on|for|before)\s+(?:this |next |the )?(" + "|".join(WEEKDAYS) + r")\b"
)
_COUNT = re.compile(
    r"(?<![\w.])(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|a dozen)\s+"
    r"((?:[a-z'-]+\s+){0,2}?)(notes?|captures?|entries|thoughts|to-?dos?|tasks?|jobs|reminders|"
    r"actions|items)\b"
)
_TODO_NOUN = re.compile(r"to-?dos?|tasks?|jobs|reminders|actions")
_TODO_CUE = re.compile(
    r"\b(to-?dos?|tasks?|overdue|due|need(?:s)? to|have to|remember to|forget to)\b"
)
# Words that make a part a clause of its own, not one more item of a list before it.
_CLAUSE = re.compile(
    r"\b(you|your|i|we|it|this|that|there|is|are|was|were|have|has|had|week|notes?|"
    r"captures?|captured|mostly|also)\b"
)
_NONE = re.compile(r"\b(nothing|none|no (?:open |more |other )?(?:to-?dos?|tasks?|jobs))\b")
_ALL = re.compile(r"\b(all|every|each)\b")
_LINKED = re.compile(r"\b(link|linked|different|existing|separate)\b")


@dataclass(frozen=True)
class Named:
    """Something a sentence can name: a to-do, a capture's title or a linked note."""

    text: str
    stems: frozenset[str]
    due: date | None = None
    count: int = 0  # a linked note's captures this week
    when: datetime | None = None  # a capture's time


@dataclass(frozen=True)
class Facts:
    """What the sentences are checked against: what the model was sent, and the lists."""

    week: Week
    todos: tuple[Named, ...]  # the open to-dos the model was sent
    titles: tuple[Named, ...]  # the week's captures
    notes: tuple[Named, ...]  # the linked notes, with their counts
    sent: str  # the data block the model was sent, with its week line
    captured: int  # captures this week, filed or still in the inbox
    capture_days: tuple[int, ...]  # per capture, its weekday (0 = Monday)
    list_counts: Mapping[str, int]  # the digest's own lists: "overdue", "next week", ...

    @property
    def things(self) -> tuple[Named, ...]:
        return self.todos + self.titles + self.notes


def facts_for(
    data: DigestData,
    *,
    todos: Sequence[OpenTodo],
    captures: Sequence[FiledCapture],
    notes: Sequence[tuple[str, Sequence[FiledCapture]]],
    sent: str,
) -> Facts:
    """The facts: the to-dos, captures and linked notes the model was sent (a busy week's
    lists are cut to fit its context), the request's text, and the digest's own lists."""

    def named(text: str, due: date | None = None, count: int = 0) -> Named:
        return Named(text, frozenset(stems(text)) - _STOP, due, count)

    lists = data.todos
    every = (lists.overdue, lists.next_seven_days, lists.later, lists.undated)
    list_counts = {
        "overdue": len(lists.overdue),
        "next week": len(lists.next_seven_days),
        "undated": len(lists.undated),
        "all": sum(len(items) for items in every),
    }
    return Facts(
        week=data.week,
        todos=tuple(named(t.text, t.due) for t in todos),
        titles=tuple(replace(named(c.title), when=c.captured) for c in captures),
        notes=tuple(named(title, count=len(items)) for title, items in notes),
        sent=sent,
        captured=data.captured_count,
        capture_days=tuple(c.captured.weekday() for c in data.captures),
        list_counts=list_counts,
    )


def screen(sentence: str, facts: Facts) -> list[str]:
    """Why a sentence is not supported by the lists (empty: it is)."""
    folded = fold(sentence)
    pieces = parts(sentence)
    found = unsupported_specifics(sentence, facts.sent, counts(facts))
    found += [f"'{p}' is in no list" for p in pieces if not _backed(p, facts)]
    found += _todo_list_problems(pieces, facts)
    found += _cut_titles(pieces, sentence, facts)
    found += _wrong_counts(pieces, facts, named_notes(sentence, facts))
    if _SOONEST.search(folded):
        found += _order_problems(pieces, facts, soonest=True)
    if _LATEST.search(folded):
        found += _order_problems(pieces, facts, soonest=False)
    if _MOST.search(_NOT_NOTES.sub(" ", folded)):
        found += _busiest_problems(pieces, facts)
    if _RECENT.search(folded):
        found += _recent_problems(sentence, facts)
    found += _placement_problems(pieces, facts)
    found += _quantity_problems(pieces, facts)
    return list(dict.fromkeys(found))


def counts(facts: Facts) -> list[int]:
    """Every count the model can read off its data: numbers it may say without them being in
    a title or a to-do."""
    found = [facts.captured, len(facts.titles), len(facts.todos), len(facts.notes)]
    return found + [n.count for n in facts.notes] + list(facts.list_counts.values())


# -- what a part is about -------------------------------------------------------------------


def content(part: str) -> list[str]:
    """A part's own words: no glue, no numbers (the specifics check has those)."""
    kept = [w for w in words(without_dates(part)) if number_value(w) is None]
    return [s for s in stems(" ".join(kept), GLUE | _STOP) if not s[0].isdigit()]


def _backed(part: str, facts: Facts) -> bool:
    words = content(part)
    if not words:
        return True
    best = max((len(set(words) & thing.stems) for thing in facts.things), default=0)
    return 2 * best >= len(set(words))


def named_todo(part: str, facts: Facts) -> Named | None:
    """The one to-do a part names: the one sharing the most words with it (at least half of
    the part's own words); None when no to-do, or two equally, fit."""
    words = set(content(part))
    if not words:
        return None
    scored = sorted(((len(words & t.stems), i) for i, t in enumerate(facts.todos)), reverse=True)
    if not scored or scored[0][0] == 0 or 2 * scored[0][0] < len(words):
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return facts.todos[scored[0][1]]


def named_notes(part: str, facts: Facts) -> list[Named]:
    """The linked notes a part names: by their first word ('Switchboard', 'running') or all
    their words."""
    have = set(stems(part))
    out = []
    for note in facts.notes:
        own = [s for s in stems(note.text) if s not in _STOP]
        if own and (own[0] in have or set(own) <= have):
            out.append(note)
    return out


def _only_a_note(part: str, facts: Facts) -> bool:
    words = set(content(part))
    return bool(words) and any(words <= n.stems for n in facts.notes)


def _todo_list_problems(pieces: Sequence[str], facts: Facts) -> list[str]:
    """What a sentence calls a to-do must be one: the part that says so ("Overdue to-dos
    include X", "You need to X", "X is due on Friday") and the bare items listed after it
    ("..., Y and Z") each share at least half their words with one open to-do. A capture's
    title is no to-do ("The to-dos for this week are: Easy 6.2 km run")."""
    out = []
    for i, part in enumerate(pieces):
        if not _TODO_CUE.search(fold(part)):
            continue
        items = [part]
        for later in pieces[i + 1 :]:
            if _CLAUSE.search(fold(later)) or _TODO_CUE.search(fold(later)):
                break
            items.append(later)
        for item in items:
            words = set(content(item))
            best = max((len(words & t.stems) for t in facts.todos), default=0)
            if words and 2 * best < len(words):
                out.append(f"'{item}' is named as a to-do, but no open to-do is")
    return out


def _cut_titles(pieces: Sequence[str], sentence: str, facts: Facts) -> list[str]:
    """A capture's title is what the model knows of the capture, and a piece of it can say
    something else: "Chess moves to Wednesdays" is not "chess moves". A part that uses two or
    more words of one title (words that are not also a linked note's, which it may be naming
    instead) must hold all of that title's words, or of one of its halves ("Shed timber
    delivery and Dave's visit")."""
    have = set(stems(sentence))
    note_words = frozenset().union(*(n.stems for n in facts.notes))
    out = []
    for part in pieces:
        if named_todo(part, facts) is not None:
            continue  # about a to-do, which says it in its own words
        own = set(content(part))
        cut = []
        for title in facts.titles:
            halves = [set(stems(h)) - _TITLE_SKIP for h in _TITLE_JOIN.split(title.text)]
            shared = own & set().union(*halves)
            if len(shared) < 2 or shared <= note_words:
                continue
            if any(h and h <= have for h in halves):
                break  # one title it uses is whole: the part names that capture
            cut.append(title.text)
        else:
            out += [f"'{part}' is a piece of the title '{t}', which says more" for t in cut[:1]]
    return out


# -- counts ---------------------------------------------------------------------------------


def _wrong_counts(pieces: Sequence[str], facts: Facts, notes: Sequence[Named]) -> list[str]:
    out = []
    for part in pieces:
        for match in _COUNT.finditer(fold(part)):
            value = number_value(match[1].removeprefix("a "))
            noun = match[3]
            if value is None:
                continue
            if _TODO_NOUN.fullmatch(noun):
                allowed = _todo_counts(part, facts)
            else:
                allowed = _capture_counts(part, facts) | {n.count for n in notes}
            if value not in allowed:
                out.append(f"'{match[0]}': the lists do not give {value}")
    return out


def _capture_counts(part: str, facts: Facts) -> set[int]:
    allowed = {facts.captured, len(facts.titles)}
    if _LINKED.search(fold(part)):
        allowed.add(len(facts.notes))
    for word in re.findall(r"[a-z]+", fold(part)):
        if word in WEEKDAYS:
            allowed.add(sum(1 for d in facts.capture_days if d == WEEKDAYS[word]))
    return allowed


def _todo_counts(part: str, facts: Facts) -> set[int]:
    match = _placement(part)
    where = _placement_name(match) if match else None
    sent = [t for t in facts.todos if where is None or _holds(t, where, facts.week)]
    allowed = {len(sent)}
    if where is None:
        allowed |= {facts.list_counts["all"], len(facts.todos)}
    elif where in facts.list_counts:
        allowed.add(facts.list_counts[where])
    return allowed


# -- order ----------------------------------------------------------------------------------


def _order_problems(pieces: Sequence[str], facts: Facts, *, soonest: bool) -> list[str]:
    """The to-dos named where the claim is (its part and the parts next to it that name a
    to-do) must be dated and the earliest (or latest) of all: no other to-do comes before
    the last of them."""
    cue = _SOONEST if soonest else _LATEST
    at = next(i for i, p in enumerate(pieces) if cue.search(fold(p)) or i == len(pieces) - 1)
    scope = _placement(pieces[at])  # "the most urgent of next week's": next week's only
    among = [
        t for t in facts.todos if scope is None or _holds(t, _placement_name(scope), facts.week)
    ]
    chosen = _run(pieces, at, lambda p: named_todo(p, facts) is not None)
    named = [t for t in (named_todo(pieces[i], facts) for i in chosen) if t is not None]
    word = "soonest" if soonest else "last"
    if not named:
        return [f"says what is due {word} but names no to-do the lists hold"]
    out = [f"'{t.text}' has no due date, so it is not due {word}" for t in named if not t.due]
    dated = [t for t in named if t.due]
    if not dated:
        return out
    edge = max(t.due for t in dated if t.due) if soonest else min(t.due for t in dated if t.due)
    passed = [
        other
        for other in among
        if other not in named
        and other.due is not None
        and ((other.due < edge) if soonest else (other.due > edge))
    ]
    if passed:
        first = min(passed, key=lambda t: t.due or date.max) if soonest else passed[-1]
        more = f" (and {len(passed) - 1} more)" if len(passed) > 1 else ""
        than = "sooner" if soonest else "later"
        out.append(f"'{first.text}' ({_day(first.due)}) is due {than} than those named{more}")
    return out


def _run(pieces: Sequence[str], at: int, fits: Callable[[str], bool]) -> list[int]:
    """The part `at` and the parts around it that `fits`, without a gap."""
    chosen = [at]
    i = at - 1
    while i >= 0 and fits(pieces[i]):
        chosen.insert(0, i)
        i -= 1
    i = at + 1
    while i < len(pieces) and fits(pieces[i]):
        chosen.append(i)
        i += 1
    return chosen


def _busiest_problems(pieces: Sequence[str], facts: Facts) -> list[str]:
    """The notes the week was "mostly" about (named in the claim's part and the bare note
    titles listed next to it) must be the busiest: none left out has more captures than one
    named."""
    text = [_NOT_NOTES.sub(" ", fold(p)) for p in pieces]
    at = next((i for i, p in enumerate(text) if _MOST.search(p)), 0)
    chosen = _run(pieces, at, lambda p: _only_a_note(p, facts))
    named = {n.text: n for i in chosen for n in named_notes(pieces[i], facts)}
    if not named:
        return ["says what the week was mostly about but names no linked note"]
    least = min(named.values(), key=lambda n: n.count)
    busier = [n for n in facts.notes if n.text not in named and n.count >= least.count]
    return [
        f"'{n.text}' ({n.count} captures) has as many as '{least.text}' ({least.count}) or "
        "more, and is not named as what the week was mostly about"
        for n in busier[:1]
    ]


def _recent_problems(sentence: str, facts: Facts) -> list[str]:
    """The captures said to be the latest (named by their whole titles) must be: none left
    out was captured after one named."""
    have = set(stems(sentence))
    named = [t for t in facts.titles if t.stems and t.stems <= have]
    if not named:
        return []
    first = min(t.when for t in named if t.when)
    later = [t for t in facts.titles if t not in named and t.when and t.when > first]
    return [f"'{t.text}' was captured later than those named as the latest" for t in later[-1:]]


# -- when -----------------------------------------------------------------------------------


def _placement(part: str) -> re.Match[str] | None:
    """Where a part says a to-do's date falls, and what it says: "overdue", "this week" (only
    with "due", "by", "later" and the like: "This week you captured" places nothing), "next
    week" or "undated"."""
    folded = fold(part)
    for name, pattern in _PLACEMENTS:
        match = pattern.search(folded)
        if match and (name != "this week" or _DUE_WORD.search(folded)):
            return match
    return None


def _placement_name(match: re.Match[str]) -> str:
    return next(name for name, pattern in _PLACEMENTS if pattern is match.re)


def _holds(todo: Named, where: str, week: Week) -> bool:
    first, last = week.next_seven_days
    if where == "undated":
        return todo.due is None
    if todo.due is None:
        return False
    if where == "overdue":
        return todo.due < first
    if where == "this week":
        return week.monday <= todo.due <= week.sunday
    return first <= todo.due <= last


def _said_of(i: int, pieces: Sequence[str], facts: Facts) -> str | None:
    """The time said of the to-do in part i: its own part's; else a list's heading before it
    ("Three are overdue: X, Y"), or the time said after a list it ends ("X and Y are
    overdue"), with only to-dos between."""
    own = _placement(pieces[i])
    if own:
        return _placement_name(own)
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(pieces):
            match = _placement(pieces[j])
            if match:
                part = fold(pieces[j])
                side = part[match.end() :] if step < 0 else part[: match.start()]
                if named_todo(pieces[j], facts) is None or named_todo(side, facts):
                    return _placement_name(match)
                break
            if named_todo(pieces[j], facts) is None:
                break
            j += step
    return None


def _placement_problems(pieces: Sequence[str], facts: Facts) -> list[str]:
    """Each to-do named with a time said of it: overdue, this week, next week, without a
    date, on a weekday, on a date."""
    out = []
    for i, part in enumerate(pieces):
        todo = named_todo(part, facts)
        if todo is None:
            continue
        where = _said_of(i, pieces, facts)
        if where and not _holds(todo, where, facts.week):
            out.append(f"'{todo.text}' is said to be {_SAID[where]}, but is {_day(todo.due)}")
        for day in _WEEKDAY_DUE.findall(fold(part)):
            if todo.due is None or todo.due.weekday() != WEEKDAYS[day]:
                out.append(f"'{todo.text}' is said to be due on a {day}, but is {_day(todo.due)}")
        for month, day_of in dates(part):
            if todo.due is None or (todo.due.month, todo.due.day) != (month, day_of):
                out.append(f"'{todo.text}' is said to be due on {day_of}/{month}, but is "
                           f"{_day(todo.due)}")  # fmt: skip
    return out


def _quantity_problems(pieces: Sequence[str], facts: Facts) -> list[str]:
    """ "Nothing is overdue", "none of your to-dos is due next week": no to-do the model was
    sent, and none in the digest's list, may be; "all your to-dos are overdue": every one."""
    out = []
    for part in pieces:
        folded = fold(part)
        match = _placement(part)
        if match is None:
            continue
        where = _placement_name(match)
        holding = [t for t in facts.todos if _holds(t, where, facts.week)]
        if _NONE.search(folded):
            listed = facts.list_counts.get(where, 0)
            if holding or listed:
                n = max(len(holding), listed)
                out.append(f"says no to-do is {_SAID[where]}, but {n} {'is' if n == 1 else 'are'}")
        elif _ALL.search(folded) and _TODO_NOUN.search(folded) and len(holding) < len(facts.todos):
            out.append(f"says every to-do is {_SAID[where]}, but not all are")
    return out


_SAID = {
    "undated": "without a due date",
    "next week": "due next week",
    "this week": "due this week",
    "overdue": "overdue",
}


def _day(day: date | None) -> str:
    return f"due {day:%a} {day.day} {day:%b}" if day else "without a due date"
