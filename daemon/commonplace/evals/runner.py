"""Run a suite: repeats, a fresh conversation per item, every output kept as JSON Lines.

A run folder `eval_suite/runs/<date>-<model>-<suite>/` holds `run-<n>.jsonl` per run (a
header, every model request and reply as it happens, one record per item with its output,
the program's decisions and grade, and the run's figures), `summary.json` (figures and the
settings used) and `sheet.md` for a person's grades. Files are rewritten after each run, so
an interrupted eval keeps what it measured.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any

from commonplace.config import Settings
from commonplace.evals import fixture
from commonplace.evals.grading import mean_figures
from commonplace.evals.sheets import NOT_THE_TRUTH, SheetRow, write_sheet
from commonplace.evals.suite import EvalError, ItemResult, Suite, SuiteEnv
from commonplace.llm import LLM, LLMError, ModelMissing, ModelUnavailable, NoModelServer, make_llm

Echo = Callable[[str], None]


@dataclass(frozen=True)
class RunOptions:
    chat_model: str
    embed_model: str
    runs: int = 1
    limit: int | None = None  # the first K items only
    out: Path | None = None  # the folder that holds run folders
    datasets: Path | None = None
    note: str = ""  # kept in summary.json and printed with the figures
    backend: str = ""  # "" : as configured ([model] backend)


@dataclass(frozen=True)
class RunReport:
    folder: Path
    figures: list[dict[str, Any]]
    mean: dict[str, Any]
    sheet: Path | None


def safe_name(model: str) -> str:
    """'qwen3.5:9b' -> 'qwen3.5-9b': a model name as part of a folder name."""
    return re.sub(r"[^A-Za-z0-9._]+", "-", model).strip("-.") or "model"


def new_run_folder(base: Path, day: date, model: str, suite: str) -> Path:
    """A folder of its own, '-2', '-3' added when the same eval ran earlier that day."""
    stem = f"{day.isoformat()}-{safe_name(model)}-{suite}"
    base.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        folder = base / (stem if n == 1 else f"{stem}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise EvalError(f"{base}: too many runs named {stem}; clear some out")


def git_commit(repo: Path = fixture.REPO) -> dict[str, Any]:
    """The commit measured, and whether the tree had changes; empty when git can't tell."""
    try:
        head = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"commit": head, "dirty": bool(dirty)}


def _json_default(value: Any) -> Any:
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def dumps(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False, default=_json_default)


class RunLog:
    """One run's JSON Lines; model calls are written as they happen, stamped with the item."""

    def __init__(self, path: Path, run: int) -> None:
        self.path = path
        self.run = run
        self.item = ""
        self._fh: IO[str] = path.open("w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self._fh.write(dumps({"run": self.run, **record}) + "\n")
        self._fh.flush()

    def llm_call(self, call: dict[str, Any]) -> None:
        self.write({"type": "llm_call", "item": self.item, **call})

    def close(self) -> None:
        self._fh.close()


class _Sink:
    """The LLM's recorder: routes every call to the run log in use."""

    def __init__(self) -> None:
        self.log: RunLog | None = None

    def __call__(self, call: dict[str, Any]) -> None:
        if self.log is not None:
            self.log.llm_call(call)


async def check_model(llm: LLM, suite: Suite) -> None:
    """The server answers and has the models the suite needs, or one line says what to do."""
    status = await llm.status()
    if not status.reachable:
        raise EvalError(status.error or f"{llm.server.where} is not answering")
    if status.backend == "builtin":
        return  # its models were found when it started
    wanted = [llm.chat_model] if suite.needs_chat else []
    wanted += [llm.embed_model] if suite.needs_embed else []
    for model in wanted:
        if not status.has_model(model):
            error = ModelMissing(model, llm.server)
            listed = ", ".join(status.models) or "none"
            raise EvalError(f"{error} (it has: {listed})")


async def _run_item(suite: Suite, env: SuiteEnv, item: dict[str, Any]) -> ItemResult:
    try:
        return await suite.run_item(env, item)
    except (ModelUnavailable, ModelMissing, NoModelServer):
        raise
    except LLMError as exc:
        error = str(exc)
        row = SheetRow(str(item["id"]), {}, f"wrong (no output: {error})")
        record = {"error": error, "dataset": item}
        return ItemResult(str(item["id"]), record, rows=(row,), error=error)


async def run_suite(
    suite: Suite, options: RunOptions, base: Settings, echo: Echo = print
) -> RunReport:
    """Run `suite` `options.runs` times over its dataset; print per-run figures."""
    if options.runs < 1:
        raise EvalError("--runs must be at least 1")
    datasets = fixture.datasets_dir(options.datasets)
    items = suite.load(datasets)[: options.limit] if options.limit else suite.load(datasets)
    with tempfile.TemporaryDirectory(prefix=f"commonplace-eval-{suite.name}-") as tmp:
        work = Path(tmp)
        settings = fixture.eval_settings(
            base,
            work / "vault",
            work / "data",
            chat_model=options.chat_model,
            embed_model=options.embed_model,
        )
        if options.backend:
            settings = dataclasses.replace(
                settings, model=dataclasses.replace(settings.model, backend=options.backend)
            )
        fixture.share_models(base, settings.data_dir)
        sink = _Sink()
        llm = make_llm(settings, recorder=sink)
        await check_model(llm, suite)
        model = llm.chat_model if suite.needs_chat else llm.embed_model
        folder = new_run_folder(fixture.runs_dir(options.out), date.today(), model, suite.name)
        env = SuiteEnv(settings, llm, datasets, work, folder)
        meta = _summary_head(suite, options, settings, llm, datasets, len(items), folder)
        _header(echo, suite, meta, folder)
        await suite.prepare(env)
        meta["prepared"] = env.info
        try:
            return await _runs(suite, options, env, sink, items, meta, echo)
        finally:
            try:
                await suite.cleanup(env)
            finally:
                await llm.aclose()


async def _runs(
    suite: Suite,
    options: RunOptions,
    env: SuiteEnv,
    sink: _Sink,
    items: Sequence[dict[str, Any]],
    meta: dict[str, Any],
    echo: Echo,
) -> RunReport:
    figures: list[dict[str, Any]] = []
    rows: list[SheetRow] = []
    sheet: Path | None = None
    for run in range(1, options.runs + 1):
        env.run = run
        run_figures, run_rows = await _one_run(suite, env, sink, items, meta, echo)
        figures.append(run_figures)
        rows += run_rows
        echo(f"run {run}:")
        for line in suite.report(run_figures):
            echo(f"  {line}")
        if suite.sheet_columns:
            sheet = env.folder / "sheet.md"
            write_sheet(sheet, _sheet_meta(meta), suite.sheet_columns, rows, suite.how_to_grade)
        _write_summary(env.folder, meta, figures)
    mean = mean_figures(figures)
    if len(figures) > 1:
        echo(f"mean of {len(figures)} runs:")
        for line in suite.report(mean):
            echo(f"  {line}")
    echo(f"outputs: {env.folder}")
    if sheet is not None:
        echo(
            f"grade by hand: fill the grade column of {sheet}, then: commonplace eval grade {sheet}"
        )
    return RunReport(env.folder, figures, mean, sheet)


async def _one_run(
    suite: Suite,
    env: SuiteEnv,
    sink: _Sink,
    items: Sequence[dict[str, Any]],
    meta: dict[str, Any],
    echo: Echo,
) -> tuple[dict[str, Any], list[SheetRow]]:
    """Every item once, each in a fresh conversation; the log is written as it goes."""
    log = RunLog(env.folder / f"run-{env.run}.jsonl", env.run)
    sink.log = log
    rows: list[SheetRow] = []
    results: list[ItemResult] = []
    seconds: list[float] = []
    try:
        log.write({"type": "run_start", **meta, "started": _now()})
        for item in items:
            log.item = str(item["id"])
            started = time.monotonic()
            result = await _run_item(suite, env, item)
            took = round(time.monotonic() - started, 3)
            log.write({"type": "item", "item": result.item, "seconds": took, **result.record})
            results.append(result)
            seconds.append(took)
            rows += [dataclasses.replace(r, run=env.run) for r in result.rows]
            shown = result.error or result.line or (result.rows[0].program if result.rows else "")
            echo(f"  run {env.run} {result.item}: {shown} ({took:.1f} s)")
        log.item = ""
        figures = suite.figures(results)
        figures["seconds_per_item"] = round(sum(seconds) / max(len(seconds), 1), 3)
        log.write({"type": "run_end", "figures": figures, "finished": _now()})
    finally:
        sink.log = None
        log.close()
    return figures, rows


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _summary_head(
    suite: Suite,
    options: RunOptions,
    settings: Settings,
    llm: LLM,
    datasets: Path,
    items: int,
    folder: Path,
) -> dict[str, Any]:
    files = sorted(datasets.glob("*.jsonl"))
    return {
        "suite": suite.name,
        "about": suite.about,
        "note": options.note,
        "date": date.today().isoformat(),
        "models": {
            "chat": llm.chat_model if suite.needs_chat else None,
            "embed": llm.embed_model if suite.needs_embed else None,
        },
        "backend": llm.server.kind,
        "server": llm.server.name,
        "host": llm.server.url,
        **git_commit(),
        "runs": options.runs,
        "items": items,
        "limit": options.limit,
        "datasets": {p.name: fixture.file_digest(p) for p in files},
        "settings": {
            "model": dataclasses.asdict(settings.model),
            "builtin": dataclasses.asdict(settings.builtin),
            "index": dataclasses.asdict(settings.index),
            "ask": dataclasses.asdict(settings.ask),
            "timezone": settings.timezone,
        },
        "grading": NOT_THE_TRUTH,
        "folder": folder.name,
    }


def _sheet_meta(meta: dict[str, Any]) -> dict[str, Any]:
    models = meta["models"]
    return {
        "suite": meta["suite"],
        "model": models["chat"] or models["embed"],
        "embed_model": models["embed"],
        "date": meta["date"],
        "runs": meta["runs"],
        "folder": meta["folder"],
        "note": meta["note"],
    }


def _write_summary(folder: Path, meta: dict[str, Any], figures: list[dict[str, Any]]) -> None:
    summary = {
        **meta,
        "finished": _now(),
        "runs_done": len(figures),
        "figures": figures,
        "mean": mean_figures(figures),
        "min": mean_figures(figures, min),
        "max": mean_figures(figures, max),
        "files": sorted(p.name for p in folder.iterdir() if p.name != "summary.json"),
    }
    text = json.dumps(summary, ensure_ascii=False, indent=2, default=_json_default)
    (folder / "summary.json").write_text(text + "\n", encoding="utf-8")


def _header(echo: Echo, suite: Suite, meta: dict[str, Any], folder: Path) -> None:
    models = ", ".join(f"{k} {v}" for k, v in meta["models"].items() if v)
    commit = meta.get("commit", "")[:10] + (" (with changes)" if meta.get("dirty") else "")
    echo(f"{suite.name}: {suite.about}")
    where = meta["server"] + (f" at {meta['host']}" if meta["host"] else "")
    echo(f"models: {models}; {where}; commit {commit or 'unknown'}")
    echo(f"{meta['runs']} run(s) of {meta['items']} item(s); outputs in {folder}")
    if meta["note"]:
        echo(f"NOTE: {meta['note']}")
    if suite.sheet_columns:
        echo(NOT_THE_TRUTH)
