"""What a search says while the index is being built: results come from the part indexed so far."""

from __future__ import annotations

from commonplace.index.batch import BATCH_FILES
from commonplace.index.searching import _building


def status(done: int, total: int, *, running: bool = True) -> dict[str, object]:
    return {"running": running, "progress": {"done": done, "total": total} if running else None}


def test_a_first_index_of_a_small_vault_says_results_may_be_missing() -> None:
    """The Obsidian Help vault's 173 notes took 10 minutes with a slow embedder, and searches
    meanwhile said nothing (the notice began at 200 notes)."""
    assert _building(status(40, 173), 0) == (
        "The index is being built (40 of 173 notes so far); results may be missing."
    )
    assert _building(status(0, BATCH_FILES + 1), 0) is not None


def test_a_few_notes_re_read_say_nothing() -> None:
    assert _building(status(0, 3), 0) is None
    assert _building(status(0, BATCH_FILES), 0) is None  # one round: searchable when it ends
    assert _building(status(0, 0, running=False), 0) is None


def test_passages_the_vector_index_has_not_caught_up_with_are_said() -> None:
    said = _building(status(0, 0, running=False), 12)
    assert said is not None and said.startswith("12 passages are not yet searchable by meaning")
