"""The docs stay true: the site builds strictly and fetches nothing from the internet; the
reference is complete (every config key, route, tool and doctor line has its words); the
examples run.

The tutorial's and how-tos' shell blocks are run, in order, page by page, in a fresh home folder
whose `~/Notes` is a copy of the sample vault, with the fake Ollama answering; a block that cannot
run there says why on the line before it (`<!-- docs-test: not run (REASON) -->`) and is reported
as a skipped test with that reason. TOML blocks are loaded as config files and JSON blocks parsed,
on every page.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from commonplace.cli.main import COMMANDS
from commonplace.config import ENV_OVERRIDES, Settings, load_settings
from docsgen import reference
from tests.fakes.ollama import FakeOllama

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
FIXTURE = REPO / "vault_fixture"

# Commands the docs teach that a branch not merged yet adds: a block using one is reported as
# skipped, saying so, until the command exists; any other unknown command in a block is an error.
# (init, service and logs were here until issue 31 was merged.)
PENDING_COMMANDS: set[str] = set()
RUN_TIMEOUT_S = 300

MARKER = re.compile(r"<!-- docs-test: (not run|parse only) \((.+)\) -->")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


@dataclasses.dataclass(frozen=True)
class Block:
    page: str  # relative to docs/
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    marker: str  # "not run" | "parse only" | ""
    reason: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a page, with the marker on the line before each, if any."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    page = path.relative_to(DOCS).as_posix()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence, lang = opening.groups()
        before = lines[i - 1].strip() if i else ""
        marker = MARKER.fullmatch(before)
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != fence:
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        found.append(
            Block(
                page,
                i + 1,
                lang,
                "\n".join(body) + "\n",
                marker.group(1) if marker else "",
                marker.group(2) if marker else "",
            )
        )
        i = j + 1
    return found


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def task_pages() -> list[Path]:
    """The pages whose shell blocks are run: the tutorial and the how-to guides."""
    return [p for p in pages() if p.name == "tutorial.md" or p.parent.name == "how-to"]


def all_blocks() -> list[Block]:
    return [b for p in pages() for b in blocks(p)]


SHELL = {"sh", "bash", "shell", "console"}


# --- the site ----------------------------------------------------------------------------------


def mkdocs(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": _pythonpath()}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _pythonpath() -> str:
    extra = [str(REPO / "daemon"), str(REPO)]
    return os.pathsep.join(
        [*extra, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `make docs` builds it, with --strict: any warning fails (a page missing from
    the nav, a nav entry with no page, a link to a missing page or heading)."""
    out = tmp_path_factory.mktemp("site")
    built = mkdocs(REPO / "mkdocs.yml", out)
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stdout}{built.stderr}"
    return out


def test_the_site_builds_strictly_with_every_page_in_the_nav(site: Path) -> None:
    for page in pages():
        html = site / page.relative_to(DOCS).with_suffix(".html")
        assert html.is_file(), f"{page.relative_to(REPO)} was not built"


def test_a_page_left_out_of_the_nav_or_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The orphan check names the page, so the lead adding a branch's page sees which one."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    (docs / "how-to" / "orphan-example.md").write_text(
        "# Orphan\n\nSee [a page that is not there](missing-page.md).\n", encoding="utf-8"
    )
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("docs_dir: docs", f"docs_dir: {docs}")
    # The hook and the watched folders are the repository's; not needed to see the build fail.
    config = re.sub(r"^(hooks|watch):.*\n(  - .*\n)+", r"\1: []\n", config, flags=re.MULTILINE)
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    built = mkdocs(tmp_path / "mkdocs.yml", tmp_path / "site")
    output = built.stdout + built.stderr
    assert built.returncode != 0
    assert "how-to/orphan-example.md" in output and "nav" in output, output
    assert "missing-page.md" in output, output


# What the built site may load: nothing from another host. The theme's JavaScript bundle holds
# two addresses it loads only when needed: a ResizeObserver polyfill for browsers without one
# (every browser since 2020 has it) and Mermaid for pages with a Mermaid diagram (none here;
# checked below).
THEME_CONDITIONAL = {
    "https://unpkg.com/resize-observer-polyfill",
    "https://unpkg.com/mermaid@11/dist/mermaid.min.js",
}
LOADS = re.compile(
    r"<(?:script|img|iframe|source|audio|video|embed|object)\b[^>]*\b(?:src|data)\s*=\s*"
    r"[\"']?([^\"' >]+)"
    r"|<link\b[^>]*\bhref\s*=\s*[\"']?([^\"' >]+)",
    re.IGNORECASE,
)
CSS_LOADS = re.compile(r"url\(\s*[\"']?([^\"')]+)|@import\s+[\"']([^\"']+)", re.IGNORECASE)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)


def test_the_built_site_fetches_nothing_from_the_internet(site: Path) -> None:
    fetched: list[str] = []
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        for match in LOADS.finditer(text):
            url = match.group(1) or match.group(2)
            if EXTERNAL.match(url):
                fetched.append(f"{html.relative_to(site)}: {url}")
        assert 'class="mermaid"' not in text, f"{html.name} has a Mermaid diagram (from a CDN)"
    for css in site.rglob("*.css"):
        for match in CSS_LOADS.finditer(css.read_text(encoding="utf-8")):
            url = match.group(1) or match.group(2)
            if EXTERNAL.match(url.strip()):
                fetched.append(f"{css.relative_to(site)}: {url}")
    for script in site.rglob("*.js"):
        text = script.read_text(encoding="utf-8", errors="replace")
        for url in re.findall(
            r"https?://(?:unpkg\.com|cdn\.[\w.]+|[\w.]*jsdelivr\.net|fonts\.(?:googleapis|gstatic)\.com)[^\"'`)\s]*",
            text,
        ):
            if url not in THEME_CONDITIONAL:
                fetched.append(f"{script.relative_to(site)}: {url}")
    assert fetched == []


# --- the README --------------------------------------------------------------------------------


def test_the_readme_is_short_and_its_links_and_picture_exist() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    first_screen = "\n".join(text.splitlines()[:60])
    for needed in ("pipx install", "commonplace init", "docs/"):
        assert needed in first_screen, f"the README's first screen lacks {needed!r}"
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    pictures = re.findall(r"<img [^>]*src=\"([^\"]+)\"", text)
    assert pictures == ["docs/assets/phone-ask.png"]  # written by tests/browser/test_phone_page.py
    for target in links + pictures:
        if not EXTERNAL.match(target) and not target.startswith("mailto:"):
            assert (REPO / target).exists(), f"README links to {target}, which does not exist"


# --- the reference: complete, from the code ---------------------------------------------------


def test_every_config_key_and_table_has_a_description() -> None:
    missing = [key.name for key in reference.config_keys() if not key.doc.strip()]
    missing += [f"[{n}]" for n, f, cls in reference.tables() if not reference.table_doc(f, cls)]
    assert missing == [], f"config keys without a 'doc' in their field metadata: {missing}"


def test_a_key_without_a_description_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a field whose metadata lost its 'doc' is named."""
    keys = reference.config_keys()
    blank = dataclasses.replace(keys[0], doc="")
    monkeypatch.setattr(reference, "config_keys", lambda: [blank, *keys[1:]])
    with pytest.raises(AssertionError, match=blank.name):
        test_every_config_key_and_table_has_a_description()


def test_the_reference_config_file_loads_and_names_every_key(tmp_path: Path) -> None:
    path = tmp_path / "commonplace.toml"
    path.write_text(reference.config_file(), encoding="utf-8")
    load_settings(path, env={})  # valid: no unknown key, no bad value
    raw = tomllib.loads(reference.config_file())
    for name, _, cls in reference.tables():
        assert set(raw[name]) == {f.name for f in reference.settable(cls)}, f"[{name}] incomplete"
    for f in reference.settable(Settings):
        assert f.name in raw, f"'{f.name}' is missing from the reference's config file"


def test_the_reference_config_file_shows_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    from commonplace.config import default_data_dir

    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    raw = tomllib.loads(reference.config_file())
    defaults = Settings()
    for name, _, cls in reference.tables():
        for f in reference.settable(cls):
            actual = getattr(getattr(defaults, name), f.name)
            actual = list(actual) if isinstance(actual, tuple) else actual
            assert raw[name][f.name] == actual, f"{name}.{f.name}: {raw[name][f.name]!r}"
    assert Path(raw["vault"]) == defaults.vault
    assert (raw["flavor"], raw["timezone"]) == (defaults.flavor, defaults.timezone)
    if sys.platform.startswith("linux"):  # the reference shows Linux's; the page says the others
        assert Path(raw["data_dir"]).expanduser() == default_data_dir()


def test_every_environment_variable_the_program_reads_is_documented() -> None:
    """`COMMONPLACE_TIMEZONE` once worked without a word about it anywhere."""
    read: set[str] = set(ENV_OVERRIDES)
    for source in (REPO / "daemon" / "commonplace").rglob("*.py"):
        read |= set(re.findall(r"\"((?:COMMONPLACE|OLLAMA)_[A-Z_]+)\"", source.read_text()))
    documented = reference.config_reference() + "".join(p.read_text() for p in pages())
    assert sorted(v for v in read if v not in documented) == []
    keys = {key.path: key.env for key in reference.config_keys() if key.env}
    assert keys == {path: var for var, path in ENV_OVERRIDES.items()} | reference.SECRETS


def test_every_command_is_in_the_reference_and_taught_in_a_guide() -> None:
    listed = {name.split()[0] for name, _ in reference.cli_commands()}
    assert listed == set(COMMANDS)
    cli = reference.cli_reference()
    taught = "".join(p.read_text() for p in pages() if p.parent.name != "reference")
    for name in COMMANDS:
        assert f"## `commonplace {name}`" in cli
        assert f"commonplace {name}" in taught, f"no guide shows `commonplace {name}`"


def api_table() -> str:
    return (DOCS / "reference" / "api.md").read_text(encoding="utf-8").split("## Every route")[0]


def test_every_api_route_is_documented() -> None:
    routes = reference.api_routes()
    assert ("GET", "/api/state") in routes and len(routes) >= 10
    table = api_table()
    missing = [
        f"{method} {path}"
        for method, path in routes
        if not re.search(rf"`{method} {re.escape(path)}[`?]", table)
    ]
    assert missing == [], f"routes without a row in docs/reference/api.md: {missing}"


def test_a_route_without_documentation_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    routes = reference.api_routes()
    monkeypatch.setattr(reference, "api_routes", lambda: [*routes, ("POST", "/api/undocumented")])
    with pytest.raises(AssertionError, match="/api/undocumented"):
        test_every_api_route_is_documented()


def test_every_mcp_tool_and_argument_is_described() -> None:
    tools = reference.mcp_tools()
    assert {t.name for t in tools} >= {"search_notes", "ask_notes", "read_note", "capture"}
    for tool in tools:
        assert tool.description and tool.title, tool.name
        for name, schema in tool.input_schema.get("properties", {}).items():
            if name not in {"question", "text", "task", "fact", "words", "path", "due_within_days"}:
                assert schema.get("description"), f"{tool.name}({name}) has no description"
    how_to = (DOCS / "how-to" / "mcp-clients.md").read_text(encoding="utf-8")
    for tool in tools:
        assert f"`{tool.name}" in how_to, f"{tool.name} is not in the MCP how-to's table"


def doctor_names() -> set[str]:
    """The names `commonplace doctor`'s lines start with (daemon/commonplace/doctor/),
    and the parts of the running daemon whose attention entries doctor shows."""
    names: set[str] = set()
    package = REPO / "daemon" / "commonplace"
    made_by = [*sorted((package / "doctor").glob("*.py")), package / "llm" / "health.py"]
    trees = [ast.parse(p.read_text()) for p in made_by]
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Check":
            arg = node.args[1] if len(node.args) > 1 else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                names.add(arg.value)
        if isinstance(node, ast.Tuple) and len(node.elts) == 2:  # ("chat model", ...) roles
            first = node.elts[0]
            if isinstance(first, ast.Constant) and str(first.value).endswith(" model"):
                names.add(first.value)
    for source in (REPO / "daemon" / "commonplace").rglob("*.py"):
        module = ast.parse(source.read_text())
        constant = next(
            (
                n.value.value
                for n in module.body
                if isinstance(n, ast.Assign)
                and any(getattr(t, "id", "") == "SOURCE" for t in n.targets)
                and isinstance(n.value, ast.Constant)
            ),
            None,
        )
        if constant:  # a part's name in attention (daemon/conflicts.py builds its entries itself)
            names.add(constant)
        for node in ast.walk(module):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", "") == "report"
                and "attention" in ast.unparse(node.func)
                and node.args
            ):
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
                elif getattr(first, "id", "") == "SOURCE" and constant:
                    names.add(constant)
    return names


def test_every_doctor_line_is_explained_in_troubleshooting() -> None:
    page = (DOCS / "how-to" / "troubleshooting.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^### `([^`]+)`", page, re.MULTILINE))
    names = doctor_names()
    assert {"vault", "ollama", "chat model", "embedding model", "calendar", "sync"} <= names
    assert sorted(names - headings) == [], "doctor lines with no section in troubleshooting.md"


# --- the examples -------------------------------------------------------------------------------


CONFIG_BLOCKS = [b for b in all_blocks() if b.lang == "toml"]
JSON_BLOCKS = [b for b in all_blocks() if b.lang == "json"]
NOT_RUN = [b for p in task_pages() for b in blocks(p) if b.lang in SHELL and b.marker]


def test_every_block_of_the_tutorial_and_how_tos_says_what_it_is() -> None:
    """A fence with no language would be neither run nor parsed."""
    bare = [b.id for p in task_pages() for b in blocks(p) if not b.lang]
    assert bare == [], f"give these blocks a language (sh, toml, json, text, ...): {bare}"


@pytest.mark.parametrize("block", CONFIG_BLOCKS, ids=lambda b: b.id)
def test_toml_examples_are_valid_config(block: Block, tmp_path: Path) -> None:
    raw = tomllib.loads(block.text)
    if block.marker == "parse only":
        return
    path = tmp_path / "commonplace.toml"
    path.write_text(block.text, encoding="utf-8")
    load_settings(path, env={})
    assert raw


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=lambda b: b.id)
def test_json_examples_parse(block: Block) -> None:
    json.loads(block.text)


@pytest.mark.parametrize("block", NOT_RUN, ids=lambda b: b.id)
def test_shell_examples_that_cannot_run_here(block: Block) -> None:
    pytest.skip(f"{block.id} not run: {block.reason}")


def _commands_in(text: str) -> set[str]:
    found: set[str] = set()
    for line in text.splitlines():
        line = re.sub(r"\s#.*$", "", line)
        found |= set(re.findall(r"(?:^|[\s;&|(])commonplace\s+([a-z][\w-]*)", line))
    return found


def _docs_model(request: dict[str, Any]) -> str:
    """The fake Ollama's chat for the examples: a schema gets a minimal object of it (tidy's
    proposal, the digest's summary), a question an answer citing its first passage."""
    schema = request.get("format")
    if isinstance(schema, dict):
        empty = {"string": "Note", "array": [], "object": {}, "integer": 0, "number": 0}
        props = schema.get("properties", {})
        return json.dumps(
            {
                k: empty.get(props.get(k, {}).get("type", "string"), "")
                for k in schema.get("required", [])
            }
        )
    user = " ".join(str(m.get("content", "")) for m in request["messages"] if m["role"] == "user")
    if '<passage n="1"' in user:
        return "Your notes say so [1]."
    return "I can't find that in your notes."


@pytest.fixture
def home(tmp_path: Path, fake_ollama_thread: FakeOllama) -> Iterator[dict[str, str]]:
    """The environment a reader's terminal has: a home folder with `~/Notes` (the sample
    vault, opened once in Obsidian: it has its .obsidian/ folder), no config yet, `commonplace`
    on the PATH, Ollama answering (the fake)."""
    fake_ollama_thread.chat_handler = _docs_model
    home = tmp_path / "home"
    shutil.copytree(FIXTURE, home / "Notes", ignore=shutil.ignore_patterns("captures", "calendar"))
    (home / "Notes" / ".obsidian").mkdir(exist_ok=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "commonplace"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m commonplace "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMMONPLACE_", "XDG_"))}
    env |= {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "OLLAMA_HOST": fake_ollama_thread.url,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": _pythonpath(),
    }
    yield env


RUN_PAGES = [p for p in task_pages() if any(b.lang in SHELL and not b.marker for b in blocks(p))]


@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_shell_examples_run(page: Path, home: dict[str, str]) -> None:
    """Each shell block of the page, in order, in one terminal session's environment: it must
    exit 0. A block using a command another branch adds is reported on its own, as skipped."""
    for block in blocks(page):
        if block.lang not in SHELL or block.marker:
            continue
        commands = _commands_in(block.text)
        unknown = commands - set(COMMANDS)
        assert unknown <= PENDING_COMMANDS, f"{block.id}: no such command: {sorted(unknown)}"
        if unknown:  # reported by test_shell_examples_of_commands_not_in_this_build
            continue
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block.text],
            cwd=home["HOME"],
            env=home,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        assert done.returncode == 0, (
            f"{block.id} exited {done.returncode}:\n{block.text}\n{done.stdout}\n{done.stderr}"
        )


PENDING = [
    b
    for p in task_pages()
    for b in blocks(p)
    if b.lang in SHELL and not b.marker and _commands_in(b.text) - set(COMMANDS)
]


@pytest.mark.parametrize("block", PENDING, ids=lambda b: b.id)
def test_shell_examples_of_commands_not_in_this_build(block: Block) -> None:
    missing = sorted(_commands_in(block.text) - set(COMMANDS))
    assert set(missing) <= PENDING_COMMANDS, f"{block.id}: no such command: {missing}"
    pytest.skip(f"{block.id} not run: `commonplace {', '.join(missing)}` is not in this build yet")


def test_every_frontmatter_key_the_daemon_writes_is_in_the_files_reference(
    tmp_path: Path,
) -> None:
    """The keys of a capture, a filed note (both flavours) and a digest, as the real writers
    write them, each named in docs/reference/files.md."""
    from datetime import date, datetime
    from zoneinfo import ZoneInfo

    import yaml

    from commonplace.capture.inbox import parse_capture, write_capture
    from commonplace.digest.render import _properties
    from commonplace.tidy.filed_note import render_logseq, render_obsidian
    from commonplace.tidy.models import Decision, Todo

    page = (DOCS / "reference" / "files.md").read_text(encoding="utf-8")
    (tmp_path / "vault").mkdir()
    settings = Settings(vault=tmp_path / "vault", data_dir=tmp_path / "data", timezone="UTC")
    now = datetime(2026, 10, 20, 8, 5, tzinfo=ZoneInfo("UTC"))
    path = write_capture(settings, "Order timber", "phone", now, original="yesterday")
    written = (settings.vault / path).read_bytes()
    capture = parse_capture(path, written, settings.tz)
    keys = set(yaml.safe_load(written.decode().split("---")[1]))
    decision = Decision(
        "Order timber", ("shed",), ("Shed Rebuild",), (Todo("Order", date(2026, 10, 23)),)
    )
    keys |= set(yaml.safe_load(render_obsidian(capture, decision).split("---")[1]))
    keys |= set(re.findall(r"^([\w-]+):: ", render_logseq(capture, decision), re.MULTILINE))

    class Week:
        label, monday, sunday = "2026-W43", date(2026, 10, 19), date(2026, 10, 25)

    class Todos:
        overdue = next_seven_days = ()

    class Data:
        week, captured_count, todos = Week(), 0, Todos()

    keys |= {key for key, _ in _properties(Data(), now)}  # type: ignore[arg-type]
    assert {"captured", "via", "capture_id", "capture-id", "digest"} <= keys
    missing = sorted(k for k in keys if f"`{k}`" not in page and f"`{k}::`" not in page)
    assert missing == [], (
        f"keys the daemon writes that docs/reference/files.md does not name: {missing}"
    )


def test_no_page_sends_the_reader_to_a_readme_section_that_is_gone() -> None:
    """The README was cut to a front page: "the README's measurements" or its "Evaluation"
    section, left in the docs from the long README, pointed at nothing."""
    stale = re.compile(r"the README's|README's \"|in the README\b")
    found = [
        f"{page.relative_to(DOCS)}:{n}"
        for page in sorted(DOCS.rglob("*.md"))
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if stale.search(line)
    ]
    assert found == []
