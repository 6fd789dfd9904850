"""The dictation eval's grades: names spelled right, word error rate, and its dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonplace.evals import fixture
from commonplace.evals.dictation import check_names, load_items
from commonplace.evals.dictation_grading import edit_distance, grade, name_words, words
from commonplace.speech import vault_names


def test_words_are_compared_without_case_punctuation_or_glued_units() -> None:
    assert words("Sam texted - 8pm, not 7.30!") == ["sam", "texted", "8", "pm", "not", "730"]
    assert words("8 p.m. not 7:30") == ["8", "pm", "not", "730"]
    assert words("she's off, rook & gable") == ["shes", "off", "rook", "and", "gable"]
    assert words("Zoë") == ["zoë"]


def test_edit_distance_counts_substitutions_deletions_insertions() -> None:
    assert edit_distance(["a", "b", "c"], ["a", "b", "c"]) == 0
    assert edit_distance(["a", "b", "c"], ["a", "x", "c"]) == 1
    assert edit_distance(["a", "b", "c"], ["a", "c"]) == 1
    assert edit_distance(["a", "b", "c"], ["a", "b", "c", "d", "e"]) == 2
    assert edit_distance([], ["a"]) == 1


def test_a_name_is_right_only_when_spelled_right_in_any_case() -> None:
    said = "lunch w zoë at the falafel place, then ring mum's friend sam"
    g = grade(
        said,
        "Lunch with Zoe at the falafel place, then ring Mum's friend SAM.",
        ["Zoë", "Mum", "Sam"],
    )
    assert g.names_right == ("Mum", "Sam")  # Zoe is not Zoë; Mum's is Mum
    assert g.reference_words == len(words(said)) and g.word_errors == 2  # w/with, zoë/zoe
    assert g.wer == pytest.approx(2 / len(words(said)))
    assert grade("ring sam", "Ring Samantha.", ["Sam"]).names_right == ()  # whole words only
    assert name_words("Gloucester Road's") == ["gloucester", "road"]


def test_every_scored_name_is_said_by_its_capture_and_is_one_the_hint_is_built_from(
    tmp_path: Path,
) -> None:
    """The dataset, written by hand: a name the hint does not hold could not be helped by it."""
    items = load_items(fixture.datasets_dir(), fixture.capture_files())
    assert len(items) == 20 and sum(len(i["names"]) for i in items) == 25
    vault = fixture.copy_vault(tmp_path / "vault", "none")
    check_names(items, vault_names(vault))
    for item in items:
        for name in item["names"]:
            assert grade(item["text"], item["text"], [name]).names_right == (name,), item["id"]


def test_a_name_the_hint_lacks_is_a_dataset_error() -> None:
    with pytest.raises(fixture.DatasetError, match="'Jewson' is not among the hint's names"):
        check_names([{"id": "x", "names": ["Jewson"]}], ["Maya", "Sam"])
