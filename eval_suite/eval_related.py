"""Related notes (the plugin's side view, index/related.py) by raw cosine against hub-corrected.

There are no judged "related notes" for any vault, so the vault's own links stand in for them:
a note's related notes should include the notes it links to and the notes that link to it.
That is a proxy, and a partial one: a link says two notes belong together, the absence of one
says nothing (most related notes are never linked), so only recall-like figures mean anything,
and they compare ways of ranking with each other, never with a user's judgement.

For every note with at least one such linked note (in the index, not itself), the ten related
notes are asked for twice: each chunk's ranking by raw cosine (as related.py did), and by
cos − r / 2 (hubness.py, as search's meaning side). Printed, per way: recall@10 (linked notes
among the ten, over min(linked, 10)), MRR@10 of the first linked note, hit@10, and how often the
vault's biggest hubs (the notes most often among others' ten) take a place.

    OLLAMA_HOST=http://127.0.0.1:PORT .venv/bin/python eval_suite/eval_related.py \\
        ../shared/devsets/logseq-docs/vault
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from commonplace.config import Settings
from commonplace.evals import fixture
from commonplace.evals.fixture import on_ollama
from commonplace.evals.suites.search import copy_notes, vault_flavor
from commonplace.index import Index, SearchFilter
from commonplace.index.related import related_notes
from commonplace.llm import make_llm
from commonplace.vault import NoteSkipped, iter_note_paths, read_note
from commonplace.vault.notes import title_from_path

LIMIT = 10


def linked(vault: Path, flavor: str, indexed: set[str]) -> dict[str, set[str]]:
    """Each note's linked notes, both ways: [[links]] resolved by title (and Logseq's file-name
    title), case-insensitively, to notes in the index."""
    notes = {}
    for path in iter_note_paths(vault):
        try:
            notes[path] = read_note(vault, path, flavor)
        except NoteSkipped:
            continue
    by_title: dict[str, str] = {}
    for path, note in notes.items():
        for name in (title_from_path(path, flavor), note.title, *note.aliases):
            by_title.setdefault(name.casefold(), path)
    out: dict[str, set[str]] = collections.defaultdict(set)
    for path, note in notes.items():
        for link in note.links:
            target = by_title.get(link.split("|")[0].split("#")[0].strip().casefold())
            if target and target != path and target in indexed and path in indexed:
                out[path].add(target)
                out[target].add(path)
    return out


async def build(vault: Path, work: Path) -> tuple[Settings, Index]:
    base = Settings()
    base = on_ollama(base, os.environ["OLLAMA_HOST"])
    s = fixture.eval_settings(
        base, work / "vault", work / "data", chat_model="-", embed_model="all-minilm"
    )
    copy_notes(vault, s.vault)
    s = dataclasses.replace(s, flavor=vault_flavor(s.vault))
    index = Index.open(s, make_llm(s))
    started = time.perf_counter()
    await index.refresh()
    print(f"indexed {index.status()['notes']} notes in {time.perf_counter() - started:.0f} s")
    return s, index


def figures(index: Index, s: Settings, links: dict[str, set[str]], hubs: bool) -> dict[str, float]:
    recall, rr, hits = [], [], []
    shown: collections.Counter[str] = collections.Counter()
    for path, wanted in sorted(links.items()):
        note = read_note(s.vault, path, s.flavor)
        response = related_notes(
            index.stores,
            path,
            note.title,
            note.body,
            limit=LIMIT,
            flt=SearchFilter(),
            rrf_k=s.index.rrf_k,
            keyword_candidates=s.index.keyword_candidates,
            hubs=index.neighbourhoods if hubs else None,
        )
        got = [r.path for r in response.results]
        shown.update(got)
        found = [i for i, p in enumerate(got) if p in wanted]
        recall.append(len(found) / min(len(wanted), LIMIT))
        rr.append(1.0 / (found[0] + 1) if found else 0.0)
        hits.append(1.0 if found else 0.0)
    top = shown.most_common(5)
    return {
        "notes": len(recall),
        "recall@10": round(statistics.mean(recall), 3),
        "mrr@10": round(statistics.mean(rr), 3),
        "hit@10": round(statistics.mean(hits), 3),
        "top5_most_shown": [f"{Path(p).stem} ({n})" for p, n in top],
    }


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("vault", type=Path)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="eval-related-") as work:
        s, index = await build(args.vault, Path(work))
        try:
            indexed = index.stores.vectors.paths()
            links = linked(s.vault, s.flavor, indexed)
            print(f"{len(links)} notes with at least one linked note (either way)")
            print(f"passages with an r: {len(index.neighbourhoods)} notes")
            for name, hubs in (("raw cosine", False), ("cos - r/2", True)):
                print(name, json.dumps(figures(index, s, links, hubs)))
        finally:
            index.close()


if __name__ == "__main__":
    asyncio.run(main())
