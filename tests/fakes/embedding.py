"""Deterministic embeddings for the fake Ollama: hashed bag of words and bigrams.

Texts that share words get close vectors, so search tests and benchmarks rank sensibly without
a model; the same text always gets the same unit vector.
"""

from __future__ import annotations

import hashlib
import math
import re
from functools import lru_cache

import numpy as np

# --- deterministic embeddings ------------------------------------------------------------------

_WORD_RE = re.compile(r"\w+(?:['’]\w+)*")
_STOP_TEXT = """
a an and are as at be been but by can do does did for from had has have he her him his how i if in
into is it its me my no nor not of on or our she so than that the their them then there these they
this those to too was we were what when where which who whom why will with would you your s t
"""
_STOP_WORDS = frozenset(_STOP_TEXT.split())
_BIGRAM_MIX = np.uint64(0x9E3779B97F4A7C15)


def _stem(word: str) -> str:
    """Crude suffix stripping, so "notes"/"note" and "meetings"/"meet" share a feature."""
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    if word.endswith("es") and len(word) >= 5 and word[:-2].endswith(("s", "x", "z", "ch", "sh")):
        word = word[:-2]
    elif word.endswith("s") and len(word) >= 4 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=1 << 18)
def _word_hash(word: str) -> int:
    """64-bit blake2b hash of the word's stem; 0 for stop words. Cached: vocabularies repeat."""
    stem = _stem(word)
    if word in _STOP_WORDS or stem in _STOP_WORDS:
        return 0
    digest = hashlib.blake2b(stem.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


def hashed_embedding(text: str, dim: int = 384) -> list[float]:
    """Embed `text` as an L2-normalised hashed bag of stemmed words plus word bigrams.

    Deterministic, and texts sharing words land near each other by cosine, which is all retrieval
    tests and benchmarks need. Each feature's bucket is `hash % dim` and its sign is the hash's top
    bit; unigrams weigh 1 + log(count), bigrams (mixed from the two word hashes) half that.
    """
    hashes = [h for w in _WORD_RE.findall(text.lower()) if (h := _word_hash(w))]
    if not hashes:
        return [1.0 / math.sqrt(dim)] * dim
    words = np.array(hashes, dtype=np.uint64)
    bigrams = words[:-1] * _BIGRAM_MIX + (words[1:] ^ (words[1:] >> np.uint64(31)))
    uni, uni_counts = np.unique(words, return_counts=True)
    bi, bi_counts = np.unique(bigrams, return_counts=True)
    features = np.concatenate((uni, bi))
    weights = np.concatenate((1.0 + np.log(uni_counts), 0.5 * (1.0 + np.log(bi_counts))))
    signs = np.where((features >> np.uint64(63)).astype(bool), 1.0, -1.0)
    buckets = (features % np.uint64(dim)).astype(np.intp)
    vec = np.bincount(buckets, weights=signs * weights, minlength=dim)
    norm = float(np.sqrt(vec @ vec))
    if norm == 0.0:
        return [1.0 / math.sqrt(dim)] * dim
    unit: list[float] = (vec / norm).tolist()
    return unit
