"""Reference pages written from the code: config keys, CLI commands, API routes, MCP tools.

Each function returns Markdown. `make reference` (pages.py) writes it into the reference pages,
where it is committed; the MkDocs hook (hooks.py) writes it afresh at every build;
tests/test_reference_pages.py fails when a committed page is not what these write now, and
tests/test_docs.py calls them to check that every key, route and tool has its description.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import tempfile
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import click

from commonplace.config import ENV_OVERRIDES, Settings

# The data folder's default depends on the system it runs on; the reference shows Linux's and
# the configuration page says the others.
PLATFORM_DEFAULTS: dict[tuple[str, ...], str] = {("data_dir",): "~/.local/share/commonplace"}
SECRETS: dict[tuple[str, ...], str] = {("calendar", "password_file"): "COMMONPLACE_CALDAV_PASSWORD"}


@dataclasses.dataclass(frozen=True)
class Key:
    """One setting of commonplace.toml: its place, type, default, limits and meaning."""

    path: tuple[str, ...]
    kind: str
    default: Any
    doc: str
    allowed: str
    env: str

    @property
    def name(self) -> str:
        return ".".join(self.path)


def _kind(hint: Any) -> str:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_kind(a) for a in get_args(hint) if a is not type(None))
    if origin is tuple:
        return f"list of {_kind(get_args(hint)[0])}"
    if hint is Path:
        return "path"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(
        hint, getattr(hint, "__name__", str(hint))
    )


def _allowed(meta: Any) -> str:
    if "choices" in meta:
        return ", ".join(f'`"{c}"`' for c in meta["choices"])
    lo, hi = meta.get("min"), meta.get("max")
    if lo is None and hi is None:
        return ""
    return f"{lo:g} to {hi:g}" if lo is not None and hi is not None else f"{lo} to {hi}"


def settable(cls: Any) -> list[dataclasses.Field[Any]]:
    """The fields a config file may set (the internal ones are filled in by the program)."""
    return [f for f in dataclasses.fields(cls) if not f.metadata.get("internal")]


def tables() -> Iterator[tuple[str, dataclasses.Field[Any], Any]]:
    """Each table of the file ([folders], [ollama], ...): its name, its field in Settings and its
    dataclass."""
    hints = get_type_hints(Settings)
    for f in settable(Settings):
        if dataclasses.is_dataclass(hints[f.name]):
            yield f.name, f, hints[f.name]


def table_doc(field_: dataclasses.Field[Any], cls: Any) -> str:
    """A table's description: its field's "doc", else the first sentence of its class's
    docstring (a dataclass without one gets its signature as __doc__: not a description)."""
    doc = field_.metadata.get("doc", "")
    own = cls.__doc__ or ""
    if not doc and own and not own.startswith(f"{cls.__name__}("):
        doc = " ".join(own.split("\n\n")[0].split())
    return str(doc)


def config_keys() -> list[Key]:
    """Every key of commonplace.toml, top-level ones first, then table by table."""
    env_of = {path: var for var, path in ENV_OVERRIDES.items()} | SECRETS
    defaults = Settings()
    keys: list[Key] = []

    def add(path: tuple[str, ...], f: dataclasses.Field[Any], hint: Any, value: Any) -> None:
        value = PLATFORM_DEFAULTS.get(path, value)
        keys.append(
            Key(
                path,
                _kind(hint),
                value,
                f.metadata.get("doc", ""),
                _allowed(f.metadata),
                env_of.get(path, ""),
            )
        )

    hints = get_type_hints(Settings)
    for f in settable(Settings):
        if not dataclasses.is_dataclass(hints[f.name]):
            add((f.name,), f, hints[f.name], getattr(defaults, f.name))
    for name, _, cls in tables():
        table_hints = get_type_hints(cls)
        for f in settable(cls):
            add((name, f.name), f, table_hints[f.name], getattr(getattr(defaults, name), f.name))
    return keys


def toml_value(value: Any) -> str:
    """A default as it is written in commonplace.toml."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_file() -> str:
    """The whole file with every default and each key's meaning as its comment: a valid
    commonplace.toml (the docs tests load it)."""
    keys = config_keys()
    lines: list[str] = []
    table = ""
    for key in keys:
        if len(key.path) == 2 and key.path[0] != table:
            table = key.path[0]
            lines += ["", f"[{table}]"]
        env = f" ({key.env})" if key.env else ""
        lines.append(f"{key.path[-1]} = {toml_value(key.default)}  # {key.doc}{env}")
    return "\n".join(lines).strip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def config_reference() -> str:
    """Tables of every key (type, default, allowed values, environment variable, meaning),
    then the whole file with its defaults."""
    out: list[str] = []
    docs = {name: table_doc(f, cls) for name, f, cls in tables()}
    current: str | None = None
    for key in config_keys():
        section = key.path[0] if len(key.path) == 2 else ""
        if section != current:
            current = section
            title = f"[{section}]" if section else "Top-level keys"
            out += ["", f"### {title}", ""]
            if section:
                out += [docs[section], ""]
            out += [
                "| key | type | default | allowed | meaning |",
                "| --- | --- | --- | --- | --- |",
            ]
        env = f" Environment: `{key.env}`." if key.env else ""
        out.append(
            f"| `{key.path[-1]}` | {key.kind} | `{_cell(toml_value(key.default))}` | "
            f"{key.allowed} | {_cell(key.doc)}{env} |"
        )
    out += ["", "### The whole file, with every default", "", "```toml", config_file(), "```"]
    return "\n".join(out).strip() + "\n"


# --- the command line -------------------------------------------------------------------------


def _param_row(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        many = "..." if param.nargs == -1 else ""
        need = "" if param.required else "optional"
        return f"| `{(param.name or '').upper()}{many}` | argument | {need} |"
    assert isinstance(param, click.Option)
    names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts])
    if param.is_flag:
        kind = "flag"
    elif isinstance(param.type, click.Choice):
        kind = ", ".join(str(c) for c in param.type.choices)
    elif isinstance(param.type, click.IntRange | click.FloatRange):
        lo, hi = param.type.min, param.type.max
        kind = "number" if isinstance(param.type, click.FloatRange) else "integer"
        if lo is not None or hi is not None:
            kind += f" ({lo if lo is not None else ''} to {hi if hi is not None else ''})".replace(
                "( to", "(up to"
            ).replace(" to )", " or more)")
    else:
        kind = param.type.name
    default = param.default
    simple = isinstance(default, str | int | float) and not isinstance(default, bool)
    shown = f" (default `{default}`)" if simple and default != "" and not param.is_flag else ""
    return f"| {names} | {_cell(kind)} | {_cell(param.help or '')}{shown} |"


def _commands(group: click.Group, ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        yield name, command
        if isinstance(command, click.Group):
            sub = click.Context(command, info_name=name, parent=ctx)
            for sub_name, sub_command in _commands(command, sub):
                yield f"{name} {sub_name}", sub_command


def cli_commands() -> list[tuple[str, click.Command]]:
    """Every command and sub-command, as `commonplace NAME` takes it."""
    from commonplace.cli.main import cli

    ctx = click.Context(cli, info_name="commonplace")
    return list(_commands(cli, ctx))


def cli_reference() -> str:
    from commonplace.cli.main import cli

    out = ["## `commonplace`", "", _cell(cli.help or ""), ""]
    out += ["| option | kind | meaning |", "| --- | --- | --- |"]
    out += [_param_row(p) for p in cli.params if p.name != "help"]
    out.append("| `--help`, `-h` | flag | Show the command's help. |")
    for name, command in cli_commands():
        summary = " ".join(inspect.cleandoc(command.help or "").split("\n\n")[0].split())
        out += ["", f"## `commonplace {name}`", "", summary, ""]
        params = [p for p in command.params if p.name != "help"]
        if params:
            out += ["| option | kind | meaning |", "| --- | --- | --- |"]
            out += [_param_row(p) for p in params]
    return "\n".join(out).strip() + "\n"


# --- the JSON API -----------------------------------------------------------------------------


def api_routes() -> list[tuple[str, str]]:
    """(method, path) of every JSON API route, listed from the aiohttp app the daemon serves."""
    from commonplace.llm import Choice, make_llm
    from commonplace.server import create_app

    with tempfile.TemporaryDirectory() as data:
        settings = Settings(data_dir=Path(data))
        app = create_app(settings, make_llm(settings, choice=Choice("ollama", "the docs")))
        found = {
            (route.method, route.resource.canonical)
            for route in app.router.routes()
            if route.resource is not None
            and route.resource.canonical.startswith("/api/")
            and route.method != "HEAD"
        }
    return sorted(found, key=lambda r: (r[1], r[0]))


def api_route_list() -> str:
    rows = ["| method | path |", "| --- | --- |"]
    rows += [f"| `{method}` | `{path}` |" for method, path in api_routes()]
    return "\n".join(rows) + "\n"


# --- the MCP server ---------------------------------------------------------------------------


def mcp_tools() -> list[Any]:
    """The tools `commonplace mcp` offers, as a client lists them."""
    from commonplace.mcp.server import build_server

    with tempfile.TemporaryDirectory() as data:
        server = build_server(Settings(data_dir=Path(data)), None)  # type: ignore[arg-type]
        return list(asyncio.run(server.list_tools()))


def mcp_reference() -> str:
    out: list[str] = []
    for tool in mcp_tools():
        hints = tool.annotations
        kind = "reads only" if hints is not None and hints.read_only_hint else "writes"
        out += ["", f"### `{tool.name}`", "", f"*{tool.title}* ({kind})", ""]
        out += [" ".join((tool.description or "").split()), ""]
        props = tool.input_schema.get("properties", {})
        if props:
            required = set(tool.input_schema.get("required", []))
            out += ["| argument | type | meaning |", "| --- | --- | --- |"]
            for name, schema in props.items():
                kind_name = schema.get("type") or " or ".join(
                    s.get("type", "") for s in schema.get("anyOf", []) if s.get("type") != "null"
                )
                if "enum" in schema:
                    kind_name = ", ".join(schema["enum"])
                default = schema.get("default")
                need = (
                    ""
                    if name in required
                    else " (optional)"
                    if default is None
                    else f" (default `{default}`)"
                )
                out.append(
                    f"| `{name}` | {kind_name} | {_cell(schema.get('description', ''))}{need} |"
                )
    return "\n".join(out).strip() + "\n"


# --- the built-in engine's models ------------------------------------------------------------


def models_reference() -> str:
    """The catalog (daemon/commonplace/engine/catalog.py) as one table and, for each model,
    where its file comes from."""
    from commonplace.engine.catalog import MODELS, is_default
    from commonplace.engine.files import size_text

    out = [
        "| id | role | default | size | memory to run it | parameters | context | licence |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in MODELS:
        memory = f"{size_text(m.memory)} at {m.memory_context} tokens"
        if m.kv_per_token:
            memory += f", + {m.kv_per_token / 1024:.0f} KiB a token more"
        out.append(
            f"| `{m.id}` | {m.role} | {'yes' if is_default(m) else ''} | {size_text(m.size)} | "
            f"{memory} | {m.parameters / 1e6:,.0f} M | {m.context:,} | {m.licence} |"
        )
    for m in MODELS:
        out += ["", f"### `{m.id}`", "", f"{m.name}. {_cell(m.description)}", ""]
        out.append(f"- File: `{m.file_name}`, {m.size:,} bytes, SHA-256 `{m.sha256}`.")
        if m.download:
            files = ", ".join(f"`{f.file}`" for f in m.download)
            first = m.download[0]
            out.append(
                f"- `commonplace models get {m.id}`: {files} from `{first.repo}` at revision "
                f"`{first.revision}` ({size_text(m.download_size)})"
                + (f"; {m.download_note}." if m.download_note else ".")
            )
        else:
            out.append(f"- No download: {m.download_note}.")
        if m.packaged is not None:
            how = "joined from" if m.packaged.kind == "concat" else "converted from the wheel of"
            need = m.packaged.requirements
            shown = need[0] + (f" ... (and {len(need) - 1} more)" if len(need) > 1 else "")
            out.append(f"- The sample's copy (`make run`, `make test`): {how} `{shown}`.")
    return "\n".join(out).strip() + "\n"


GENERATORS = {
    "models": models_reference,
    "config": config_reference,
    "cli": cli_reference,
    "api-routes": api_route_list,
    "mcp-tools": mcp_reference,
}
