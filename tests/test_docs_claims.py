"""Claims the docs make about what the program does, each checked against the program.

Each was found wrong by a newcomer (issue 44): the tutorial said to paste `commonplace token`
into the plugin while `init` and the install page said Pair; "questions wait until the model is
back" was true of `Ask/` notes only. (The phone page's controls, as the phone how-to names them,
are checked in the browser: tests/browser/test_docs_page.py.)
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from click.testing import CliRunner

from commonplace.cli.main import cli

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def section(page: Path, heading: str) -> str:
    """The text under `heading` (a '## ' line that starts with it), up to the next '## '."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_tutorial_connects_the_plugin_as_init_and_the_plugin_do(
    vault: Path, tmp_path: Path, dead_ollama_url: str
) -> None:
    """Step 6 said to paste `commonplace token` into a Token field; `init` says to press Pair
    and confirm the code with `commonplace plugin pair`, and that is what the plugin offers."""
    (vault / ".obsidian").mkdir(exist_ok=True)
    env = {"HOME": str(tmp_path), "OLLAMA_HOST": dead_ollama_url}
    init = CliRunner().invoke(
        cli,
        ["--config", str(tmp_path / "c.toml"), "init", "--vault", str(vault), "--yes"],
        env=env,
        input="",
    )
    assert init.exit_code == 0, init.output
    said = " ".join(init.output.split())
    assert (
        "press Pair in its settings; confirm the code it shows with: commonplace plugin pair"
        in (said)
    )
    step = section(DOCS / "tutorial.md", "6. Connect the Obsidian plugin")
    assert "**Pair**" in step and "commonplace plugin pair" in step
    assert "paste" not in step.lower() and "```sh\ncommonplace token" not in step
    settings_tab = (REPO / "obsidian-bridge" / "src" / "settings-tab.ts").read_text()
    assert '.setButtonText("Pair")' in settings_tab  # the button the step names


def test_what_waits_while_the_model_is_down_is_said_as_it_is(
    vault: Path, tmp_path: Path, dead_ollama_url: str
) -> None:
    """ "Questions wait" is true of a question in an `Ask/` note only (tests/ask cover that it
    is answered when the model is back): `commonplace ask`, like the page, says at once that the
    model is not running. Every page that says questions wait says which."""
    env = {"COMMONPLACE_VAULT": str(vault), "OLLAMA_HOST": dead_ollama_url, "HOME": str(tmp_path)}
    started = time.monotonic()
    asked = CliRunner().invoke(cli, ["ask", "What is my sourdough starter called?"], env=env)
    assert asked.exit_code == 1, asked.output
    assert time.monotonic() - started < 30  # at once: it does not wait for the model
    assert "Ollama" in asked.output and dead_ollama_url.split("//")[1] in asked.output
    claims = [
        (page.relative_to(DOCS).as_posix(), line)
        for page in sorted(DOCS.rglob("*.md"))
        for line in re.split(r"(?<=[.;:])\s", " ".join(page.read_text(encoding="utf-8").split()))
        if re.search(r"\bquestions\b[^.;]*\bwait\b", line)
    ]
    assert claims, "no page says what happens to questions while the model is down"
    unqualified = [(page, line) for page, line in claims if "Ask/" not in line]
    assert unqualified == [], unqualified
