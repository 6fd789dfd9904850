"""Notes the owner excluded in their editor stay out of the index (real Tantivy + LanceDB)."""

from __future__ import annotations

import json

from commonplace.config import Settings
from commonplace.index import Index
from tests.index.conftest import OpenIndex, with_host, write


def exclude_in_obsidian(settings: Settings, filters: list[str]) -> None:
    app = settings.vault / ".obsidian/app.json"
    app.parent.mkdir(exist_ok=True)
    app.write_text(json.dumps({"alwaysUpdateLinks": True, "userIgnoreFilters": filters}))


async def found(index: Index, query: str) -> set[str]:
    """Notes the keywords find, plus any excludable note the meaning side still holds (a
    meaning search returns every note it has, nearest first)."""
    words = await index.search(query, limit=20, mode="keyword")
    meaning = await index.search(query, limit=200, mode="vector")
    return {r.path for r in words.results} | ({r.path for r in meaning.results} & EXCLUDABLE)


EXCLUDABLE = {"Templates/Meeting.md", "archive/Old.md", "Drafts/Quill.md"}


async def test_obsidians_excluded_files_are_left_out_and_follow_its_changes(
    open_index: OpenIndex, isettings: Settings
) -> None:
    write(isettings.vault, "Templates/Meeting.md", "# {{title}}\n\nzephyrine agenda {{date}}\n")
    write(isettings.vault, "Projects/Zephyr.md", "# Zephyr\n\nThe zephyrine kite project.\n")
    exclude_in_obsidian(isettings, ["Templates/"])
    index = open_index()
    await index.refresh()
    assert await found(index, "zephyrine") == {"Projects/Zephyr.md"}

    # An edit the watcher reports does not bring it in either.
    write(isettings.vault, "Templates/Meeting.md", "# {{title}}\n\nzephyrine notes {{date}}\n")
    await index.refresh(paths=["Templates/Meeting.md", "Templates"])
    assert await found(index, "zephyrine") == {"Projects/Zephyr.md"}

    # The owner removes the rule: the next scan indexes the template ...
    exclude_in_obsidian(isettings, [])
    stats = await index.refresh()
    assert stats.indexed == 1
    assert await found(index, "zephyrine") == {"Projects/Zephyr.md", "Templates/Meeting.md"}

    # ... and puts it back: the next scan takes it out of both indexes again.
    exclude_in_obsidian(isettings, ["/^templates//"])
    stats = await index.refresh()
    assert stats.deleted == 1
    assert await found(index, "zephyrine") == {"Projects/Zephyr.md"}
    assert (isettings.vault / "Templates/Meeting.md").exists()  # the note itself is untouched


async def test_logseq_hidden_and_the_configured_rules_apply_together(
    open_index: OpenIndex, isettings: Settings
) -> None:
    write(isettings.vault, "logseq/config.edn", '{:hidden ["/archive"]}\n')
    write(isettings.vault, "archive/Old.md", "quillwort survey, old\n")
    write(isettings.vault, "Drafts/Quill.md", "quillwort survey, draft\n")
    write(isettings.vault, "Notes/Quill.md", "quillwort survey, kept\n")
    index = open_index(with_host(isettings, isettings.ollama.host, exclude=("Drafts/",)))
    await index.refresh()
    assert await found(index, "quillwort survey") == {"Notes/Quill.md"}
