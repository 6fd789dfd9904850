"""The phone page shows Obsidian's request to pair with its code, and the owner confirms there.

The plugin's side is played over HTTP exactly as the plugin sends it (Obsidian's origin, JSON);
the page is the real one in Chromium against the real server.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.browser.conftest import ServerThread, screenshot


def as_obsidian(server: ServerThread, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server.url + path,
        data=json.dumps(body).encode(),
        headers={"Origin": "app://obsidian.md", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def test_the_page_shows_the_code_and_pairs(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    assert page.is_hidden("#pair-banner")
    asked = as_obsidian(server, "/api/pair/request", {"device": "Obsidian on iPhone (Notes)"})
    page.click("#refresh")
    page.wait_for_selector("#pair-banner .pair-code")
    assert page.inner_text("#pair-banner .pair-code") == asked["code"]
    assert "Obsidian on iPhone (Notes)" in page.inner_text("#pair-banner")
    screenshot(page, "pairing")
    page.click("#pair-banner button:has-text('Pair')")
    page.wait_for_selector("#pair-banner .pair-message:has-text('Paired.')")
    polled = as_obsidian(server, "/api/pair/poll", {"id": asked["id"]})
    assert polled["status"] == "confirmed" and polled["token"]
    page.click("#refresh")
    page.wait_for_selector("#pair-banner", state="hidden")


def test_a_denied_request_gets_no_token(page: Any, server: ServerThread) -> None:
    page.wait_for_selector("#status-text:has-text('Ready')")
    asked = as_obsidian(server, "/api/pair/request", {"device": "Obsidian on Linux (Notes)"})
    page.click("#refresh")
    page.click("#pair-banner button:has-text('Deny')")
    page.wait_for_selector("#pair-banner .pair-message:has-text('Denied.')")
    assert as_obsidian(server, "/api/pair/poll", {"id": asked["id"]}) == {"status": "denied"}
