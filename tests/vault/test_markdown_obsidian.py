"""Markdown read as Obsidian reads it (CommonMark block rules), and frontmatter as YAML 1.2.

Each case is a note Obsidian shows differently from a naive line reader: a code example inside
a longer fence, an indented heading, a Markdown link to a note, `tags: [no, on]`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commonplace.vault import markdown, parse_note
from commonplace.vault.chunks import split_into_chunks

FOUR_BACKTICKS = """\
Intro with #real-tag.

````markdown
Type three backticks to start a code block:
```
#not-a-tag [[Not A Link]]
- [ ] not a task
# Not a heading
````

After the fence: [[Real Link]].
"""


def test_a_fence_is_closed_only_by_one_at_least_as_long() -> None:
    assert markdown.inline_tags(FOUR_BACKTICKS) == ["real-tag"]
    assert markdown.wikilinks(FOUR_BACKTICKS) == ["Real Link"]
    assert markdown.todos(FOUR_BACKTICKS) == []
    assert markdown.headings(FOUR_BACKTICKS) == []


@pytest.mark.parametrize(
    ("text", "in_code"),
    [
        ("~~~\n```\n#x\n~~~\n#y", [True, True, True, True, False]),  # ``` does not close ~~~
        ("```\n~~~\n#x\n```\n#y", [True, True, True, True, False]),
        ("```\n``` not a close\n#x\n```", [True, True, True, True]),  # a close has no info
        ("```js\n#x\n    ```\n#y", [True, True, True, True]),  # indented 4: not a close
        ("```js\n#x\n   ```\n#y", [True, True, True, False]),
        ("``` a`b\n#x", [False, False]),  # a backtick in the info: not a fence
        ("    ```\n#x", [False, False]),  # indented code, not a fence
        ("```\nnever closed\n#x", [True, True, True]),
    ],
)
def test_code_mask(text: str, in_code: list[bool]) -> None:
    assert markdown.code_mask(text.split("\n")) == in_code


@pytest.mark.parametrize(
    ("line", "level", "text"),
    [
        ("# Top", 1, "Top"),
        ("   ### Indented three", 3, "Indented three"),
        ("## Closed ##", 2, "Closed"),
        ("## C#", 2, "C#"),
        ("#\tTabbed", 1, "Tabbed"),
    ],
)
def test_headings(line: str, level: int, text: str) -> None:
    (heading,) = markdown.headings(line)
    assert (heading.level, heading.text) == (level, text)


@pytest.mark.parametrize("line", ["    # four spaces is code", "#hashtag", "####### seven", "#"])
def test_not_headings(line: str) -> None:
    assert markdown.headings(line) == []


def test_markdown_links_to_notes_count_as_links() -> None:
    text = (
        "See [the plan](Projects/Shed%20Rebuild.md#Roof), [[Maya Collins]], "
        "[again](<Projects/Shed Rebuild.md>), [bare](Budget), [web](https://example.com/a.md), "
        "[mail](mailto:a@b.c), [pic](photo.png), [anchor](#Top) and ![img](diagram.md)."
    )
    assert markdown.links(text) == ["Maya Collins", "Projects/Shed Rebuild", "Budget", "diagram"]
    assert markdown.links("```\n[x](Hidden.md)\n```") == []
    note = parse_note("n.md", "[plan](Shed.md)\n")
    assert note.links == ("Shed",)


@pytest.mark.parametrize(
    ("front", "tags"),
    [
        ("tags: [no, on]", ["no", "on"]),
        ("tags: [yes, off, y, n]", ["yes", "off", "y", "n"]),
        ("tags:\n  - No\n  - ON", ["No", "ON"]),
        ("tags: [true, 2024, 1.5]", ["true", "2024", "1.5"]),
        ("tags: [1:20, 0777]", ["1:20", "0777"]),
    ],
)
def test_yaml_1_1_surprises_do_not_reach_tags(front: str, tags: list[str]) -> None:
    note = parse_note("n.md", f"---\n{front}\n---\nbody\n")
    assert markdown.frontmatter_tags(note.frontmatter) == tags


def test_yaml_1_1_surprises_do_not_reach_titles_or_aliases() -> None:
    meta = markdown.parse_frontmatter("title: no\naliases: [on, off]\nwhen: 1:20\n")
    assert meta["title"] == "no"
    assert markdown.frontmatter_aliases(meta) == ["on", "off"]
    assert meta["when"] == "1:20"
    real = markdown.parse_frontmatter("done: true\ncount: 3\ndate: 2026-10-20\n")
    assert real["done"] is True and real["count"] == 3
    assert str(real["date"]) == "2026-10-20"


_LINES = st.sampled_from(
    [
        "",
        "# Heading",
        "  ## Indented heading",
        "### ",
        "```",
        "````",
        "~~~",
        "```python",
        "    ```",
        "text with #tag and [[Link]]",
        "- [ ] a task (due 2026-10-23)",
        "> quote",
        "plain words " * 30,
        "a sentence. " * 80,
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINES, max_size=40))
def test_the_chunker_never_loses_a_line(lines: list[str]) -> None:
    """Every non-blank line of the body is in a chunk, whatever fences and headings do."""
    text = "\n".join(lines)
    note = parse_note("Notes/N.md", text)
    chunks = split_into_chunks(note, max_tokens=64)
    covered = "\n".join(c.text for c in chunks)
    body_lines = note.body.splitlines()
    heads = {h.line for h in markdown.headings(note.body)}
    for i, line in enumerate(body_lines):
        if line.strip() and i not in heads:
            for word in line.split():
                assert word in covered, (i, line)
    for chunk in chunks:
        assert chunk.start_line < chunk.end_line or not chunk.text.strip()
