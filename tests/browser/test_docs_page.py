"""The phone how-to names the page's controls as the page shows them, at 390 pixels.

docs/how-to/phone.md said the Capture view is "a text box, *Dictate* and *Send*": *Add a photo*
was left out. Its first sentence about each view is its list of controls; the page's visible
buttons there must be exactly those."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.browser.conftest import ServerThread

PHONE_HOWTO = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "phone.md"

VISIBLE_CONTROLS = """(view) => [...document.querySelectorAll(
  `${view} button, ${view} label.secondary`)]
  .filter((el) => el.offsetParent !== null)
  .map((el) => el.textContent.trim())"""


def documented_controls(view: str) -> set[str]:
    """The controls the how-to's bullet for `view` names in its first sentence (in italics)."""
    text = PHONE_HOWTO.read_text(encoding="utf-8")
    bullet = re.search(rf"^- \*\*{view}\*\*: (.*?)(?:\.\s)", text, re.S | re.M)
    assert bullet, f"phone.md has no bullet for the {view} view"
    return set(re.findall(r"\*([^*]+)\*", bullet.group(1)))


def test_the_capture_views_controls_are_the_ones_the_how_to_names(
    page: Any, server: ServerThread
) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    page.wait_for_selector("#dictate:visible")  # dictation is on in this daemon
    shown = set(page.evaluate(VISIBLE_CONTROLS, "#view-capture"))
    assert shown == documented_controls("Capture")
