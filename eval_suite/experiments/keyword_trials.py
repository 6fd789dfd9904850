"""Sixth round of search trials on the keyword side (eval_suite/README.md, rows K14-K19, S2).

Why does plain whole-note BM25 (`../shared/devsets/logseq-docs/bm25_baseline.py`: raw text, no
stemming, no stop words, path and text as one field) rank first some third-vault paraphrases
that our keyword side ranks lower (p08, p11, p12)? `trials` rebuilds the project's whole-note
index (`chunking.index_note`, its fields and weights, `keywords.note_query`) once per variant,
each undoing one of those design choices (or all three: "plain"), and replays keyword mode (kw)
and hybrid (hy: `fusion_trials.fuse`, the project's fusion) on the data sets that
`hubness_trials.py collect` and `fusion_trials.py terms` wrote (the collect's work folder holds
the vault). The first variant is the project and reproduces its figures; every other one is
also compared with it over every question of every set (`fusion_trials.paired`). `ranks` prints
the expected note's rank in keyword mode under each variant, for the questions where they differ.

    .venv/bin/python eval_suite/experiments/keyword_trials.py trials \\
        /tmp/dev.pkl:/tmp/hubness-A:logseq \\
        /tmp/fix.pkl:/tmp/hubness-B:obsidian /tmp/third.pkl:/tmp/hubness-C:obsidian
    .venv/bin/python eval_suite/experiments/keyword_trials.py ranks \\
        /tmp/third.pkl:/tmp/hubness-C:obsidian
"""

from __future__ import annotations

import math
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from unittest import mock

import tantivy
from fusion_trials import Data, by_score, fuse, load, paired, row, vector

from commonplace.index import keywords
from commonplace.index.chunking import index_note
from commonplace.index.keywords import (
    NOTE_BOOSTS,
    NOTE_FIELDS,
    STOP_WORDS,
    _query_terms,
    keyword_query,
    note_query,
)
from commonplace.vault.notes import parse_note

_TOKEN = re.compile(r"[^\W_]+")  # what Tantivy's simple tokenizer calls a word


def s_stem(word: str) -> str:
    """Harman's (1991) S stemmer: plural endings only ("lines" = "line", "presentation" stays
    itself, where Porter's stemmer makes it "present", as it makes "presents" and "presenting")."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def cut(text: str, stem: Callable[[str], str]) -> str:
    return _TOKEN.sub(lambda m: stem(m.group(0).lower()), text)


@dataclass(frozen=True)
class Variant:
    tokenizer: str = "en_stem"  # what Tantivy applies to every field
    stem: Callable[[str], str] | None = None  # a Python pass before it (notes and questions)
    exact: float = 0.0  # the text also searched unstemmed, as a field of this weight (0: not)
    one_field: bool = False  # title, path words and text as one field (the plain baseline's)
    stop_words: bool = True  # common English words left out of the question
    typed_idf: bool = False  # each word weighted by idf(the form typed) / idf(its stem)


VARIANTS: dict[str, Variant] = {
    "en_stem (the project)": Variant(),
    "S stemmer": Variant("default", s_stem),
    "no stemmer": Variant("default"),
    "en_stem + unstemmed text at 0.5": Variant(exact=0.5),
    "en_stem + unstemmed text at 1": Variant(exact=1.0),
    "typed idf": Variant(typed_idf=True),
    "one field": Variant(one_field=True),
    "no stop words": Variant(stop_words=False),
    "plain: no stemmer, one field, no stop words": Variant(
        "default", one_field=True, stop_words=False
    ),
}
BASE = "en_stem (the project)"


def rankings(d: Data, vault: Path, flavor: str, variant: str) -> dict[str, list[tuple[str, float]]]:
    v = VARIANTS[variant]
    stem, exact = v.stem, v.exact
    sb = tantivy.SchemaBuilder()
    for name in NOTE_FIELDS:
        sb.add_text_field(name, stored=False, tokenizer_name=v.tokenizer)
    sb.add_text_field("exact", stored=False, tokenizer_name="default")
    fields, boosts = NOTE_FIELDS, NOTE_BOOSTS
    if exact:
        fields, boosts = [*NOTE_FIELDS, "exact"], {**NOTE_BOOSTS, "exact": exact}
    if v.one_field:
        fields, boosts = ["text"], {}
    sb.add_text_field("path", stored=True, tokenizer_name="raw")
    schema = sb.build()
    index = tantivy.Index(schema, path=tempfile.mkdtemp(prefix="kwtrial-"))
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    prep = (lambda t: cut(t, stem)) if stem else (lambda t: t)
    for path in sorted(set(d["paths"])):
        note = index_note(
            parse_note(path, (vault / path).read_text(encoding="utf-8"), flavor), flavor
        )
        if v.one_field:
            note = replace(
                note, title="", where="", text=f"{note.where}\n{note.title}\n{note.text}"
            )
        writer.add_document(
            tantivy.Document(
                title=prep(note.title),
                where=prep(note.where),
                text=prep(note.text),
                exact=note.text,
                path=path,
            )
        )
    writer.commit()
    index.reload()
    searcher = index.searcher()
    out: dict[str, list[tuple[str, float]]] = {}
    for q in d["q"]:
        with mock.patch.object(keywords, "STOP_WORDS", STOP_WORDS if v.stop_words else frozenset()):
            text = note_query(q["query"])
        if stem:
            text = cut(text, stem)
        if v.typed_idf and text:
            text = typed_idf(index, searcher, q["query"], text)
        if not text:
            out[q["id"]] = []
            continue
        query = index.parse_query(text, fields, field_boosts=boosts)
        hits = searcher.search(query, 5000).hits
        out[q["id"]] = [(str(searcher.doc(at)["path"][0]), float(s)) for s, at in hits]
    return out


def typed_idf(index: tantivy.Index, searcher: tantivy.Searcher, question: str, text: str) -> str:
    """The question's words each boosted by idf(the form typed) / idf(its stem): a stem shared
    by many forms ("present" for "presentation") keeps its matches but not its low idf. The
    word pairs are left as they are."""
    phrases, words = _query_terms(question)
    n = searcher.num_docs

    def idf(field: str, word: str) -> tuple[int, float]:
        df = searcher.search(index.parse_query(word, [field]), 1).count
        return df, math.log(1 + (n - df + 0.5) / (df + 0.5))

    boosted = []
    for w in words:
        if not any(c.isalnum() for c in w):
            continue
        typed_df, typed = idf("exact", w)
        boosted.append(f"{w}^{typed / idf('text', w)[1]:.4f}" if typed_df else w)
    pairs = text[len(keyword_query(question)) :]
    return " ".join([*phrases, *boosted]) + pairs


def main_trials(specs: list[str]) -> None:
    files, where = [], {}
    for spec in specs:
        pkl, work, flavor = spec.split(":")
        files.append(Path(pkl))
        where[Path(pkl).stem] = (Path(work) / "vault", flavor)
    sets = load(files)
    for name, d in sets.items():
        vault, flavor = where[name]
        d["kw"] = {v: rankings(d, vault, flavor, v) for v in VARIANTS}
        same = sum(
            [p for p, _ in d["kw"][BASE][q["id"]][:10]] == [p for p, _ in q["notes"][:10]]
            for q in d["q"]
        )
        print(f"{name}: the rebuilt index gives the collected first ten for {same}/{len(d['q'])}")
    base = lambda d, q: fuse(q, vector(d, q))  # noqa: E731
    for v in VARIANTS:

        def kw(d: Data, q: Data, v: str = v) -> list[str]:
            return by_score(dict(d["kw"][v][q["id"]]))

        def hy(d: Data, q: Data, v: str = v) -> list[str]:
            return fuse(q, vector(d, q), d["kw"][v][q["id"]])

        row(sets, v, {"kw": kw, "hy": hy})
        if v != BASE:
            paired(sets, f"{v} (hybrid)", hy, base)
            paired(sets, f"{v} (keyword)", kw, lambda d, q: [p for p, _ in q["notes"]])


def main_ranks(specs: list[str]) -> None:
    for spec in specs:
        pkl, work, flavor = spec.split(":")
        d = next(iter(load([Path(pkl)]).values()))
        found = {v: rankings(d, Path(work) / "vault", flavor, v) for v in VARIANTS}
        print(" | ".join(VARIANTS))
        for q in d["q"]:
            ranks = []
            for v in VARIANTS:
                top = [p for p, _ in found[v][q["id"]]][:10]
                ranks.append(next((str(i) for i, p in enumerate(top, 1) if p in q["answers"]), "-"))
            if len(set(ranks)) > 1:
                print(Path(pkl).stem, q["id"], " ".join(ranks), q["query"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["ranks"]:
        main_ranks(sys.argv[2:])
    else:
        main_trials(sys.argv[2:])
