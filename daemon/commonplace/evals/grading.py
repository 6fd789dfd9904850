"""The program's grades: plain rules applied to outputs, pure functions of values.

These rules are deliberately independent of the code they grade (tidy's own word matching is
not reused here), and they are a first guess, never the truth: "the answer contains '26
November'" is not "the answer is right", and two to-dos that share words may not mean the
same. The grading sheet puts a person's grade next to every one of these.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from commonplace.evals.normalise import (
    fold,
    normalise,
)

# -- retrieval (search) ---------------------------------------------------------------------

KS = (5, 10)
MRR_AT = 10


def distinct_notes(paths: Iterable[str]) -> list[str]:
    """Chunk results -> notes, in the rank of each note's best chunk."""
    return list(dict.fromkeys(paths))


def grade_ranking(ranked: Sequence[str], answers: Sequence[str]) -> dict[str, Any]:
    """Where each answer note ranks (1-based, None if absent) and the per-question figures."""
    position = {path: i + 1 for i, path in enumerate(ranked)}
    ranks = {a: position.get(a) for a in answers}
    found = [r for r in ranks.values() if r is not None]
    first = min(found, default=None)
    grade: dict[str, Any] = {
        "ranks": ranks,
        "rr": 1.0 / first if first is not None and first <= MRR_AT else 0.0,
    }
    for k in KS:
        hits = sum(1 for r in found if r <= k)
        grade[f"recall@{k}"] = hits / len(answers) if answers else 0.0
    top = max(KS)
    grade["found"] = sum(1 for r in found if r <= top)
    grade["all_found"] = bool(answers) and grade["found"] == len(answers)
    return grade


def retrieval_figures(grades: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Mean figures over questions: notes found (top 10), questions with all found, MRR, recall."""
    n = len(grades)
    expected = sum(len(g["ranks"]) for g in grades)
    out: dict[str, Any] = {
        "questions": n,
        "notes_expected": expected,
        "notes_found": sum(int(g["found"]) for g in grades),
        "all_found": sum(1 for g in grades if g["all_found"]),
        f"mrr@{MRR_AT}": _mean(g["rr"] for g in grades),
    }
    for k in KS:
        out[f"recall@{k}"] = _mean(g[f"recall@{k}"] for g in grades)
    return out


# -- facts in answers (ask) -----------------------------------------------------------------


def fact_present(fact: str, answer: str) -> bool:
    """Is the fact in the answer, after both are normalised? A word may go on ('Wednesday'
    is in 'Wednesdays'); a number may not ('40' is not in '400')."""
    want = normalise(fact)
    if not want:
        return False
    end = r"(?!\d|\.\d)" if want[-1].isdigit() else ""
    pattern = r"(?<![a-z0-9])(?<!\d\.)" + re.escape(want) + end
    return re.search(pattern, normalise(answer)) is not None


def grade_answer(
    item: Mapping[str, Any],
    answer: str,
    refused: bool,
    cited_paths: Sequence[str],
    flags: Sequence[str] = (),
) -> dict[str, Any]:
    """Facts found, expected notes cited, refusal right, the program's flags; 'right' needs the
    facts (or the refusal where the notes are silent) and no flag.

    `flags` are what the program said about the answer itself before showing it: a citation
    that matches no passage, an answer that cites nothing, markup it removed, text after the
    fixed refusal that it left out, a reply cut short, no answer. An answer the program had to
    flag is wrong, as a reply the assistant's checks had to correct is: the owner was shown
    a warning, not a sourced answer.

    Citing the expected notes is reported but not required for 'right': an answer can be
    correct from a passage the dataset did not list, which only a person can judge.
    """
    facts = list(item.get("facts") or [])
    expected = list(item.get("expected_notes") or [])
    answerable = bool(item.get("answerable", True))
    found = [f for f in facts if fact_present(f, answer)] if not refused else []
    cited = sorted(set(expected) & set(cited_paths))
    refusal_right = refused != answerable
    right = refused if not answerable else (not refused and len(found) == len(facts))
    return {
        "answerable": answerable,
        "refused": refused,
        "refusal_right": refusal_right,
        "facts_found": found,
        "facts_missing": [f for f in facts if f not in found],
        "expected_cited": cited,
        "expected_not_cited": [p for p in expected if p not in cited],
        "all_expected_cited": bool(expected) and len(cited) == len(expected),
        "flags": list(flags),
        "right": right and not flags,
    }


def ask_verdict(grade: Mapping[str, Any]) -> str:
    word = "right" if grade["right"] else "wrong"
    flags = grade.get("flags") or []
    flagged = f"; flagged: {' '.join(flags)}" if flags else ""
    if not grade["answerable"]:
        said = "refused" if grade["refused"] else "answered"
        return f"{word} (no answer in the notes; {said}{flagged})"
    if grade["refused"]:
        return f"{word} (refused, but the notes hold the answer{flagged})"
    facts = len(grade["facts_found"]) + len(grade["facts_missing"])
    notes = len(grade["expected_cited"]) + len(grade["expected_not_cited"])
    return (
        f"{word} (facts {len(grade['facts_found'])}/{facts}, "
        f"expected notes cited {len(grade['expected_cited'])}/{notes}{flagged})"
    )


def ask_figures(grades: Sequence[Mapping[str, Any]], errors: int) -> dict[str, Any]:
    """`grades` covers every question (a failed one graded as an empty answer); `errors`
    says how many of them the model failed on."""
    answerable = [g for g in grades if g["answerable"]]
    unanswerable = [g for g in grades if not g["answerable"]]
    return {
        "questions": len(grades),
        "right": sum(1 for g in grades if g["right"]),
        "facts_all_found": sum(
            1 for g in answerable if not g["refused"] and not g["facts_missing"]
        ),
        "answerable": len(answerable),
        "expected_all_cited": sum(1 for g in answerable if g["all_expected_cited"]),
        "false_refusals": sum(1 for g in answerable if g["refused"]),
        "unanswerable": len(unanswerable),
        "refused_right": sum(1 for g in unanswerable if g["refused"]),
        "flagged": sum(1 for g in grades if g.get("flags")),
        "errors": errors,
    }


# -- filings (tidy) -------------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_STOP_TEXT = """a an and the to of for from in on at by with about my me i it its is be this that
    all some any up out off do get into them her his their our your so as or"""
_STOP = frozenset(_STOP_TEXT.split())
TODO_MATCH = 0.5  # share of the shorter to-do's words the two must share


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def todo_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(fold(text)) if w not in _STOP}


def todo_similarity(a: str, b: str) -> float:
    """Shared content words over the shorter to-do's words (0..1)."""
    wa, wb = todo_words(a), todo_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / min(len(wa), len(wb))


def match_todos(
    expected: Sequence[Mapping[str, Any]], got: Sequence[Mapping[str, Any]]
) -> list[tuple[int, int]]:
    """Pairs (expected index, got index), best similarity first, each used once."""
    scored = sorted(
        (
            (todo_similarity(str(e.get("text", "")), str(g.get("text", ""))), i, j)
            for i, e in enumerate(expected)
            for j, g in enumerate(got)
        ),
        reverse=True,
    )
    used_e: set[int] = set()
    used_g: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for score, i, j in scored:
        if score < TODO_MATCH or i in used_e or j in used_g:
            continue
        used_e.add(i)
        used_g.add(j)
        pairs.append((i, j))
    return sorted(pairs)


def acceptable_links(row: Mapping[str, Any], known_titles: Iterable[str]) -> set[str]:
    """The required links plus every vault title the row's `notes` names (fixture_guide.md:
    'notes names any further titles that are acceptable but not required')."""
    notes = fold(str(row.get("notes") or ""))
    extra = {t for t in known_titles if fold(t) in notes}
    return {fold(t) for t in row.get("links") or []} | {fold(t) for t in extra}


def grade_filing(
    row: Mapping[str, Any],
    *,
    links: Sequence[str],
    tags: Sequence[str],
    todos: Sequence[Mapping[str, Any]],
    proposed_tags: Sequence[str] = (),
    proposed_todos: Sequence[Mapping[str, Any]] = (),
    known_titles: Iterable[str] = (),
    words_kept: bool = True,
    trims: Sequence[str] = (),
) -> dict[str, Any]:
    """Grade what was kept (the filing) and what the model proposed.

    `right` is the strict grade: the filing holds the required links and no link beyond the
    acceptable ones, every expected to-do with its due date and no other, no forbidden tag,
    the captured words exactly, *and the program did not have to trim the proposal* (`trims`:
    every value it dropped or rewrote, with the reason) nor did the model propose a forbidden
    tag or a to-do the capture does not hold. `right_after_checks` is the same rule on the
    filing alone: what the owner gets, the model's mistakes that the program caught left out.
    """
    required = [str(t) for t in row.get("links") or []]
    got = {fold(t) for t in links}
    ok = acceptable_links(row, known_titles)
    expected_todos = list(row.get("todos") or [])
    pairs = match_todos(expected_todos, todos)
    due_right = [
        i
        for i, j in pairs
        if (expected_todos[i].get("due") or None) == (todos[j].get("due") or None)
    ]
    matched = {j for _, j in pairs}
    forbidden = {fold(t) for t in row.get("forbidden_tags") or []}
    grade: dict[str, Any] = {
        "links_required": len(required),
        "links_found": [t for t in required if fold(t) in got],
        "links_missing": [t for t in required if fold(t) not in got],
        "links_extra": [t for t in links if fold(t) not in ok],
        "todos_expected": len(expected_todos),
        "todos_found": [str(expected_todos[i].get("text")) for i, _ in pairs],
        "todos_due_right": len(due_right),
        "todos_missing": [
            str(e.get("text"))
            for i, e in enumerate(expected_todos)
            if i not in {p for p, _ in pairs}
        ],
        "todos_spurious": [str(t.get("text")) for j, t in enumerate(todos) if j not in matched],
        "todos_spurious_proposed": len(proposed_todos)
        - len(match_todos(expected_todos, proposed_todos)),
        "forbidden_tags_kept": sorted({t for t in tags if fold(t) in forbidden}),
        "forbidden_tags_proposed": sorted(
            {t for t in proposed_tags if fold(t).lstrip("#").strip() in forbidden}
        ),
        "words_kept": words_kept,
        "trims": list(trims),
    }
    grade["right_after_checks"] = (
        not grade["links_missing"]
        and not grade["links_extra"]
        and len(due_right) == len(expected_todos) == len(pairs)
        and not grade["todos_spurious"]
        and not grade["forbidden_tags_kept"]
        and words_kept
    )
    grade["right"] = (
        grade["right_after_checks"]
        and not trims
        and not grade["forbidden_tags_proposed"]
        and not grade["todos_spurious_proposed"]
    )
    return grade


def tidy_verdict(grade: Mapping[str, Any]) -> str:
    trims = grade.get("trims") or []
    parts = [f"trimmed {len(trims)}"] if trims else []
    parts += [
        f"links {len(grade['links_found'])}/{grade['links_required']}",
        f"extra {len(grade['links_extra'])}",
        f"to-dos {len(grade['todos_found'])}/{grade['todos_expected']}",
        f"due right {grade['todos_due_right']}",
        f"spurious {len(grade['todos_spurious'])}",
    ]
    if grade["forbidden_tags_kept"]:
        parts.append("forbidden tag " + ", ".join(grade["forbidden_tags_kept"]))
    elif grade["forbidden_tags_proposed"]:
        parts.append("forbidden tag proposed " + ", ".join(grade["forbidden_tags_proposed"]))
    if grade["todos_spurious_proposed"]:
        parts.append(f"spurious proposed {grade['todos_spurious_proposed']}")
    if not grade["words_kept"]:
        parts.append("WORDS CHANGED")
    return ("right" if grade["right"] else "wrong") + " (" + ", ".join(parts) + ")"


def tidy_figures(grades: Sequence[Mapping[str, Any]], errors: int) -> dict[str, Any]:
    """`grades` covers every capture (a failed one graded as an empty filing)."""
    return {
        "captures": len(grades),
        "right": sum(1 for g in grades if g["right"]),
        "right_after_checks": sum(1 for g in grades if g.get("right_after_checks")),
        "trimmed": sum(1 for g in grades if g.get("trims")),
        "links_required": sum(g["links_required"] for g in grades),
        "links_found": sum(len(g["links_found"]) for g in grades),
        "links_extra": sum(len(g["links_extra"]) for g in grades),
        "todos_expected": sum(g["todos_expected"] for g in grades),
        "todos_found": sum(len(g["todos_found"]) for g in grades),
        "todos_due_right": sum(g["todos_due_right"] for g in grades),
        "todos_spurious": sum(len(g["todos_spurious"]) for g in grades),
        "todos_spurious_proposed": sum(g["todos_spurious_proposed"] for g in grades),
        "forbidden_tags_kept": sum(len(g["forbidden_tags_kept"]) for g in grades),
        "forbidden_tags_proposed": sum(len(g["forbidden_tags_proposed"]) for g in grades),
        "words_changed": sum(1 for g in grades if not g["words_kept"]),
        "errors": errors,
    }


# -- digest sentences -----------------------------------------------------------------------


def _in_data(word: str, data: str) -> bool:
    """A whole word of the (folded) data, allowing a plural or possessive on either side."""
    return re.search(rf"(?<![\w]){re.escape(word)}(?:'s|s|es)?(?![\w])", data) is not None


_LINK = re.compile(r"\[\[|\]\(|https?://")
_LIST = re.compile(r"(?:^|\s)(?:[-*•]|\d+\.)\s+\S.*(?:\s[-*•]|\s\d+\.)\s+\S")
_HEADING = re.compile(r"(?:^|\s)#{1,6}\s")


def digest_problems(
    sentences: Sequence[Mapping[str, Any]],
    *,
    trimmed: bool,
    leaked: Sequence[str],
    busiest: Sequence[str] = (),
    soonest: Sequence[str] = (),
) -> list[str]:
    """Why the program grades a digest's paragraph wrong (empty: right). Its rules: two to four
    plain sentences, no lists, headings or links, every sentence supported by the lists (none
    left out by the digest's screen, digest/screen.py), saying what the week was mostly about
    (one of the `busiest` linked notes named) and naming the to-dos due soonest (one of
    `soonest`, by shared words), written from the lists alone (no captured words reached the
    prompt); and not cut by the program (a model that wrote more had it trimmed)."""
    out: list[str] = []
    if not sentences:
        return ["no sentences"]
    text = " ".join(str(s["text"]) for s in sentences)
    folded = fold(text)
    if trimmed:
        out.append("trimmed by the program (more than four sentences or 900 characters)")
    if len(sentences) < 2:
        out.append("one sentence (two to four asked)")
    if _LINK.search(text):
        out.append("a link")
    if _LIST.search(text):
        out.append("a list")
    if _HEADING.search(text):
        out.append("a heading")
    if busiest and not any(_in_data(fold(t), folded) for t in busiest):
        out.append("the week's busiest note not named (" + " / ".join(busiest) + ")")
    if soonest and not any(todo_similarity(t, text) >= TODO_MATCH for t in soonest):
        out.append("the to-do due soonest not named (" + " / ".join(soonest) + ")")
    odd = sum(1 for s in sentences if s.get("unsupported"))
    if odd:
        out.append(f"{odd} sentence{'s' if odd > 1 else ''} the lists do not support (left out)")
    if leaked:
        out.append("captured words reached the prompt: " + ", ".join(leaked))
    return out


LEAK_WORDS = 8  # longer than any title made from a capture's first words


def words_leaked(
    source: str, prompt: str, allowed: Iterable[str] = (), n: int = LEAK_WORDS
) -> bool:
    """Does the prompt hold a run of `n` words of the source (a capture's words), once the
    `allowed` texts (titles, link titles, kept to-dos: the digest's inputs) are taken out?"""

    def words(text: str) -> str:
        return " " + " ".join(_WORD.findall(fold(text))) + " "

    rest = words(prompt)
    for text in sorted(allowed, key=len, reverse=True):
        if text.strip():
            rest = rest.replace(words(text), " | ")
    src = _WORD.findall(fold(source))
    return any(f" {' '.join(src[i : i + n])} " in rest for i in range(len(src) - n + 1))


def digest_verdict(odd: Sequence[str]) -> str:
    if not odd:
        return "supported (the screen found every claim in the lists; shown)"
    return "unsupported (left out of the note: " + "; ".join(odd) + ")"


# -- people's grades ------------------------------------------------------------------------

GRADE_WORDS: dict[str, float] = {
    "1": 1.0, "0": 0.0, "0.5": 0.5, ".5": 0.5, "y": 1.0, "n": 0.0, "yes": 1.0, "no": 0.0,
    "right": 1.0, "wrong": 0.0, "ok": 1.0, "partly": 0.5, "partial": 0.5, "half": 0.5,
    "s": 1.0, "u": 0.0, "supported": 1.0, "unsupported": 0.0, "✓": 1.0, "✗": 0.0, "x": 0.0,
    "pass": 1.0, "fail": 0.0,
}  # fmt: skip


def parse_grade(value: str) -> float | None:
    """A grade cell -> 0..1; None when empty. ValueError names what is allowed."""
    word = value.strip().lower()
    if not word:
        return None
    first = re.split(r"[\s(,;]+", word, maxsplit=1)[0]
    for key in (word, first):
        if key in GRADE_WORDS:
            return GRADE_WORDS[key]
    raise ValueError(
        f"{value.strip()!r} is not a grade; use 1 / 0 / 0.5, right / wrong / partly, "
        "or supported / unsupported"
    )


# -- across runs ----------------------------------------------------------------------------


def _mean(values: Iterable[float]) -> float:
    items = list(values)
    return sum(items) / len(items) if items else 0.0


def mean_figures(
    runs: Sequence[Mapping[str, Any]], combine: Callable[[list[float]], float] | None = None
) -> dict[str, Any]:
    """Every number over runs combined (the mean by default; `min`/`max` give the spread),
    nested tables too; other values are run 1's."""
    pick = combine or (lambda values: round(_mean(values), 4))
    if not runs:
        return {}
    out: dict[str, Any] = {}
    for key, first in runs[0].items():
        values = [r.get(key) for r in runs]
        if isinstance(first, bool) or not all(isinstance(v, int | float) for v in values):
            if isinstance(first, Mapping) and all(isinstance(v, Mapping) for v in values):
                out[key] = mean_figures([v for v in values if isinstance(v, Mapping)], pick)
            else:
                out[key] = first
            continue
        out[key] = pick([float(v) for v in values if isinstance(v, int | float)])
    return out
