"""Hubs: passages near every question, and the meaning side's correction for them (CSLS).

Among sentence embeddings some passages sit close to almost anything: on the Logseq docs dev
set, `tutorial.md`, `testimonials.md`, `Start here.md` and the changelogs took the first places
of paraphrased questions whose page ranked below them. Such a "hub" is near its own neighbours
too, so how near a passage is to its neighbours says how much of its closeness to a query is
its own. CSLS (cross-domain similarity local scaling, Conneau et al. 2018, "Word translation
without parallel data") scores a query q and a passage c by 2·cos(q, c) − r(q) − r(c), r being
the mean cosine to the K = 10 nearest neighbours; for one query r(q) is the same for every
passage, so the ranking is the one of cos(q, c) − r(c) / 2. Both constants are the method's
own: nothing here was read off an eval (eval_suite/README.md, row V19, and the other hubness
reductions tried: mutual proximity, local scaling, NICDM).

A passage's neighbours are taken from other notes only: a note's own passages are close to each
other (a long note's most of all) and compete for nothing, as results are grouped by note.

Kept current (the indexer): the manifest holds each note's chunk fingerprints and, once
computed, its passages' r. A refresh computes r for the notes it wrote, after its last batch,
against the whole index (a first run computes every note once, at its end), in slices that let
edits in between; and a note's r is computed again once as many notes have been written or
deleted since as half the index holds (a new note near an old one raises the old one's r only
then: a bounded error, at a bounded cost). A note without a value yet counts with the mean r of
the others, so it is neither favoured nor held back. Cost: the exact nearest neighbours of every
passage written (`VectorStore.neighbour_means`, up to BATCH passages at a time, typically one
slice: matrix products against every stored vector, read once per call from memory or, past
the memory budget, streamed from LanceDB in blocks; nearest.py). Measured at 50,000 notes
(91,690 passages, past the budget): a slice of 470 passages 0.64 s, 0.2 s of it reading the
table, where a LanceDB vector query per passage took 6-7 ms and, as the vector index misses
many of the exact nearest (eval_suite/bench_ann.py), made r 0.33 lower on average. When
more than one call is to come (a first run, or many stale notes) the calls share a pass
(`share=True`): each pair of passages is compared once, not once from each side, which about
halves a first run's cost (eval_suite/bench_neighbours.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from commonplace.index.models import SearchResult
from commonplace.runtime.foreground import pause

if TYPE_CHECKING:
    from commonplace.index.store import Stores

log = logging.getLogger(__name__)

K = 10  # neighbours whose mean cosine is a passage's r (CSLS's own K)
SHARE = 0.5  # r's share in the score: CSLS's 2·cos − r, halved
SLICE = 256  # notes computed between two looks for edits waiting ...
SLICE_S = 0.5  # ... or fewer, once this long has gone (past memory a call is ~0.6 s at 50k notes)
BATCH = 512  # passages asked of the vector store at once at most (past memory: one table read)


class Neighbourhoods:
    """Each passage's r, by note and chunk ordinal, as the meaning side's searches read it.

    The daemon reads the stored values in a thread (`load_later`: 0.5 s at 50,000 notes that
    would hold up its start); until they are in, `rescore` leaves the cosines as they are, as
    for an index that has none yet, and values set or forgotten meanwhile win over those read."""

    def __init__(self, values: Mapping[str, Mapping[int, float]] | None = None) -> None:
        self._values: dict[str, dict[int, float]] = {}
        self._lock = threading.Lock()
        self._sum = 0.0  # of every passage's r, and how many: the mean without a pass over all
        self._count = 0
        self._mean = 0.0
        self.loaded = threading.Event()  # set once the stored values are in
        self._touched: set[str] | None = None  # while loading: notes set or forgotten since
        self._cleared = False  # ... or all of them
        self.set(values or {})
        self.loaded.set()

    def load_later(self, read: Callable[[], Mapping[str, Mapping[int, float]]]) -> None:
        """Read the stored values (`read`) in a thread of their own."""
        with self._lock:
            self.loaded.clear()
            self._touched, self._cleared = set(), False
        threading.Thread(
            target=self._load, args=(read,), name="neighbourhoods", daemon=True
        ).start()

    def _load(self, read: Callable[[], Mapping[str, Mapping[int, float]]]) -> None:
        started = time.monotonic()
        try:
            values = read()
        except Exception as exc:  # searches go on uncorrected; notes written get theirs again
            log.warning("passages' neighbourhoods not read: %s", exc)
            values = {}
        with self._lock:
            touched, cleared = self._touched or set(), self._cleared
            for path, rs in values.items():
                if not cleared and path not in touched:
                    self._put(path, rs)
            self._touched, self._cleared = None, False
            self._update_mean()
            self.loaded.set()
        log.info(
            "passages' neighbourhoods read: %d notes in %.2f s",
            len(values),
            time.monotonic() - started,
        )

    def _drop(self, path: str) -> None:
        old = self._values.pop(path, None)
        if old:
            self._sum -= sum(old.values())
            self._count -= len(old)

    def _update_mean(self) -> None:
        self._mean = self._sum / self._count if self._count > 0 else 0.0

    def __len__(self) -> int:
        return len(self._values)

    def r(self, path: str, ordinal: int) -> float:
        """The passage's r; the mean of the others' for one not computed yet."""
        value = self._values.get(path, {}).get(ordinal)
        return self._mean if value is None else value

    def _put(self, path: str, rs: Mapping[int, float]) -> None:
        self._drop(path)
        self._values[path] = dict(rs)
        self._sum += sum(rs.values())
        self._count += len(rs)

    def set(self, values: Mapping[str, Mapping[int, float]]) -> None:
        with self._lock:
            for path, rs in values.items():
                self._put(path, rs)
            if self._touched is not None:
                self._touched.update(values)
            self._update_mean()

    def forget(self, paths: Sequence[str]) -> None:
        with self._lock:
            for path in paths:
                self._drop(path)
            if self._touched is not None:
                self._touched.update(paths)
            self._update_mean()

    def clear(self) -> None:
        with self._lock:
            self._values, self._sum, self._count, self._mean = {}, 0.0, 0, 0.0
            self._cleared = True

    def rescore(self, hits: Sequence[SearchResult]) -> list[SearchResult]:
        """The meaning side's candidates by cos − r / 2, best first (ties keep their order);
        as they are while the stored values are being read."""
        if not self._values or not self.loaded.is_set():
            return list(hits)
        scored = [h.rescored(h.score - SHARE * self.r(h.path, h.ordinal)) for h in hits]
        return sorted(scored, key=lambda h: -h.score)


def update(
    stores: Stores,
    table: Neighbourhoods,
    *,
    recent: Callable[[str], np.ndarray | None] = lambda fp: None,
    limit: int = SLICE,
) -> bool:
    """Compute r for up to `limit` notes that need it (new, or stale); True if more wait.

    Runs in the indexer's thread, between writes. `recent` gives the vectors written moments
    ago (the indexer's VectorMemory), so an edit costs no LanceDB scan. A note whose vectors are
    not all stored (the model down, or a write since) is left until it is written again."""
    manifest, vectors = stores.manifest, stores.vectors
    todo = manifest.neighbours_todo(limit + 1)
    if not todo:
        return False
    more = len(todo) > limit
    todo = todo[:limit]
    # more than one call to come (a first run): the calls share a pass, each pair once
    share = more or sum(len(chunks) for _, chunks in todo) > BATCH
    changes = manifest.neighbour_changes()
    stored: dict[str, np.ndarray] = {}
    for _, chunks in todo:
        for _, fp in chunks:
            if (vec := recent(fp)) is not None:
                stored[fp] = vec
    lookup = [path for path, chunks in todo if not all(fp in stored for _, fp in chunks)]
    if lookup:
        stored.update(vectors.vectors_for(lookup))
    done: dict[str, dict[int, float]] = {}
    group: list[tuple[str, list[tuple[int, str]]]] = []

    def compute() -> None:
        """r for the passages of the notes in `group`, asked of the store at once."""
        asked = [(path, o, fp) for path, chunks in group for o, fp in chunks]
        means = (
            vectors.neighbour_means(
                [path for path, _, _ in asked],
                np.stack([stored[fp] for _, _, fp in asked]),
                K,
                [ordinal for _, ordinal, _ in asked],
                share=share,
            )
            if asked
            else []
        )
        values: dict[str, dict[int, float]] = {path: {} for path, _ in group}
        for (path, ordinal, _), value in zip(asked, means, strict=True):
            if value is not None:
                values[path][ordinal] = round(value, 5)
        for path, rs in values.items():
            manifest.set_neighbours(path, rs, changes)
        done.update(values)
        group.clear()

    started = time.monotonic()
    for n, (path, chunks) in enumerate(todo):
        if n and time.monotonic() - started > SLICE_S:
            more = True  # the rest after the edits waiting, if any
            break
        if not all(fp in stored for _, fp in chunks):
            manifest.set_neighbours(path, None, changes)  # not again until it is written again
            continue
        group.append((path, chunks))
        if sum(len(c) for _, c in group) >= BATCH:
            pause()  # a request is being answered: let it go first (runtime/foreground.py)
            compute()
    pause()
    compute()
    table.set(done)
    return more
