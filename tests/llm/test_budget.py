"""Fitting text into the model's context: estimates that err on the large side, and excerpts
that keep a capture's beginning and end."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from commonplace.llm import budget


def test_short_text_is_kept_whole() -> None:
    assert budget.excerpt("a short capture", 100) == "a short capture"


def test_long_text_keeps_beginning_and_end_and_says_what_is_left_out() -> None:
    text = "first line\n" + "middle words " * 2000 + "\nlast line"
    shown = budget.excerpt(text, 300)
    assert shown.startswith("first line")
    assert shown.endswith("last line")
    assert "characters of this capture are not shown here" in shown
    assert budget.estimate_tokens(shown) <= 300


def test_estimates_err_on_the_large_side_for_english_and_cjk() -> None:
    english = "The quick brown fox jumps over the lazy dog. " * 10
    assert budget.estimate_tokens(english) >= len(english) / 4
    assert budget.estimate_tokens("日本語の文章です。" * 10) >= 90  # about a token a character


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=40, max_value=600))
def test_an_excerpt_always_fits_and_keeps_the_start(text: str, tokens: int) -> None:
    shown = budget.excerpt(text, tokens)
    assert budget.estimate_tokens(shown) <= tokens
    if shown == text:
        return
    head = shown.split("\n\n[... ", 1)[0]
    assert text.startswith(head)
