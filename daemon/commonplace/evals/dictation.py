"""`commonplace eval dictation`: the week's captures spoken, sent as phones send them, transcribed.

Each of the 20 fixture captures is spoken by espeak-ng (recordings.py), encoded as webm/opus
and mp4/aac, and transcribed through the daemon's own path for POST /api/transcribe: the
recording decoded by `decode_audio`, the hint made by `name_hint` from the vault (the fixture's
notes, without the captures, so a capture cannot hint its own words), and whisper.cpp called by
`WhisperTranscriber` with the configured model file. Every recording is transcribed twice: with
the hint and with an empty one. Nothing is downloaded: the model is a file that must exist.

Figures per condition: the hint's names spelled right (eval_suite/datasets/dictation.jsonl lists
which of them each capture says), the word error rate, and seconds per capture (decoding and
transcribing, the model already loaded). The run folder keeps every transcript in run-N.jsonl,
side by side with its capture in transcripts-run-N.md, and the figures in summary.json.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from commonplace.config import Settings, SpeechSettings
from commonplace.evals import fixture
from commonplace.evals.dictation_grading import Grade, grade
from commonplace.evals.grading import mean_figures
from commonplace.evals.recordings import PHONE_FORMATS, RecordingError, encode, speak
from commonplace.evals.runner import RunLog, RunReport, dumps, git_commit, new_run_folder
from commonplace.evals.suite import EvalError
from commonplace.speech import (
    SpeechUnavailable,
    Transcriber,
    WhisperTranscriber,
    decode_audio,
    duration_s,
    model_path,
    name_hint,
    vault_names,
)
from commonplace.vault.markdown import split_frontmatter

Echo = Callable[[str], None]
DATASET = "dictation.jsonl"
CONDITIONS = ("with_hint", "without_hint")
ABOUT = (
    "the week's 20 captures spoken by espeak-ng, sent as webm/opus and mp4/aac, transcribed "
    "by whisper.cpp with and without the name hint: names right, word error rate, seconds"
)


@dataclass(frozen=True)
class DictationOptions:
    model: Path  # a whisper.cpp ggml file
    runs: int = 1
    limit: int | None = None
    out: Path | None = None
    datasets: Path | None = None
    note: str = ""
    formats: tuple[str, ...] = tuple(PHONE_FORMATS)
    voice: str = "en"
    threads: int = 4
    keep_audio: bool = False


@dataclass(frozen=True)
class Recording:
    item: str
    kind: str
    data: bytes
    spoken_seconds: float


def load_items(datasets: Path, captures: Mapping[str, bytes]) -> list[dict[str, Any]]:
    """The dataset's rows, each with the capture's words (the text that is spoken)."""
    rows = fixture.load_jsonl(datasets / DATASET, ("id", "capture", "names"))
    items = []
    for row in rows:
        if row["capture"] not in captures:
            raise fixture.DatasetError(f"{DATASET}: {row['capture']} is not a fixture capture")
        _, body, _ = split_frontmatter(captures[row["capture"]].decode("utf-8"))
        items.append({**row, "text": body.strip()})
    return items


def check_names(items: Sequence[Mapping[str, Any]], hint_names: Sequence[str]) -> None:
    """Every name scored is one the hint is built from: the hint can only help with those."""
    known = set(hint_names)
    for item in items:
        for name in item["names"]:
            if name not in known:
                raise fixture.DatasetError(
                    f"{DATASET} {item['id']}: {name!r} is not among the hint's names"
                )


def transcribe_recording(
    data: bytes, prompt: str, transcriber: Transcriber, speech: SpeechSettings
) -> tuple[str, float]:
    """What POST /api/transcribe does with a recording (decode, then whisper), and its length."""
    audio = decode_audio(data, max_seconds=speech.max_seconds)
    return transcriber(audio, prompt).strip(), duration_s(audio)


def run_dictation(
    options: DictationOptions,
    base: Settings,
    echo: Echo = print,
    transcriber: Transcriber | None = None,
) -> RunReport:
    """Run the dictation eval `options.runs` times; `transcriber` replaces whisper in tests."""
    if options.runs < 1:
        raise EvalError("--runs must be at least 1")
    unknown = [k for k in options.formats if k not in PHONE_FORMATS]
    if unknown or not options.formats:
        raise EvalError(f"formats are {', '.join(PHONE_FORMATS)}; not {', '.join(unknown)}")
    speech = dataclasses.replace(
        base.speech, whisper_model=str(options.model), threads=options.threads
    )
    if transcriber is None:
        try:
            model_path(speech)
        except SpeechUnavailable as exc:
            raise EvalError(str(exc)) from None
        transcriber = WhisperTranscriber(speech)
    datasets = fixture.datasets_dir(options.datasets)
    items = load_items(datasets, fixture.capture_files())
    items = items[: options.limit] if options.limit else items
    with tempfile.TemporaryDirectory(prefix="commonplace-eval-dictation-") as tmp:
        vault = fixture.copy_vault(Path(tmp) / "vault", "none")
        names = vault_names(vault, limit=speech.hint_names)
        hint = name_hint(vault, limit=speech.hint_names)
    check_names(items, names)
    folder = new_run_folder(
        fixture.runs_dir(options.out), date.today(), options.model.stem, "dictation"
    )
    meta = _summary_head(options, speech, datasets, items, hint, folder)
    _header(echo, meta, folder)
    recordings = _record(items, options, folder, echo)
    meta["recordings"] = {f"{r.item}.{r.kind}": _recording_meta(r) for r in recordings}
    _warm_up(transcriber, speech)
    figures: list[dict[str, Any]] = []
    for run in range(1, options.runs + 1):
        run_figures = _one_run(
            run, items, recordings, hint, transcriber, speech, meta, folder, echo
        )
        figures.append(run_figures)
        echo(f"run {run}:")
        for line in report(run_figures):
            echo(f"  {line}")
        _write_summary(folder, meta, figures)
    mean = mean_figures(figures)
    if len(figures) > 1:
        echo(f"mean of {len(figures)} runs:")
        for line in report(mean):
            echo(f"  {line}")
    echo(f"outputs: {folder}")
    return RunReport(folder, figures, mean, None)


def _record(
    items: Sequence[Mapping[str, Any]], options: DictationOptions, folder: Path, echo: Echo
) -> list[Recording]:
    """Each capture spoken once and encoded in each format; the same bytes for every run."""
    out: list[Recording] = []
    started = time.monotonic()
    for item in items:
        try:
            samples, rate = speak(item["text"], voice=options.voice)
            for kind in options.formats:
                data = encode(samples, rate, kind)
                out.append(Recording(item["id"], kind, data, samples.shape[0] / rate))
                if options.keep_audio:
                    (folder / "audio").mkdir(exist_ok=True)
                    (folder / "audio" / f"{item['id']}.{kind}").write_bytes(data)
        except RecordingError as exc:
            raise EvalError(str(exc)) from None
    spoken = sum(r.spoken_seconds for r in out) / max(len(options.formats), 1)
    echo(
        f"spoke {len(items)} captures ({spoken:.0f} s of speech) in "
        f"{time.monotonic() - started:.1f} s; {len(out)} recordings"
    )
    return out


def _recording_meta(r: Recording) -> dict[str, Any]:
    return {
        "bytes": len(r.data),
        "sha256": hashlib.sha256(r.data).hexdigest()[:16],
        "spoken_seconds": round(r.spoken_seconds, 2),
    }


def _warm_up(transcriber: Transcriber, speech: SpeechSettings) -> None:
    """Load the model before anything is timed (the daemon keeps it loaded after one use)."""
    try:
        transcriber(np.zeros(16_000, dtype=np.float32), "")
    except SpeechUnavailable as exc:
        raise EvalError(str(exc)) from None


def _one_run(
    run: int,
    items: Sequence[Mapping[str, Any]],
    recordings: Sequence[Recording],
    hint: str,
    transcriber: Transcriber,
    speech: SpeechSettings,
    meta: Mapping[str, Any],
    folder: Path,
    echo: Echo,
) -> dict[str, Any]:
    log = RunLog(folder / f"run-{run}.jsonl", run)
    by_id = {str(item["id"]): item for item in items}
    results: list[dict[str, Any]] = []
    try:
        log.write({"type": "run_start", **meta})
        for rec in recordings:
            item = by_id[rec.item]
            log.item = rec.item
            line = []
            for condition in CONDITIONS:
                prompt = hint if condition == "with_hint" else ""
                started = time.monotonic()
                try:
                    text, seconds = transcribe_recording(rec.data, prompt, transcriber, speech)
                except SpeechUnavailable as exc:
                    raise EvalError(str(exc)) from None
                took = round(time.monotonic() - started, 3)
                g = grade(item["text"], text, item["names"])
                result = _result(rec, condition, text, g, took, seconds)
                results.append(result)
                log.write({"type": "item", **result})
                line.append(f"{condition} names {len(g.names_right)}/{len(g.names)} "
                            f"wer {g.wer:.2f} {took:.1f} s")  # fmt: skip
            echo(f"  run {run} {rec.item} {rec.kind}: " + "; ".join(line))
        log.item = ""
        figures = dictation_figures(results)
        log.write({"type": "run_end", "figures": figures})
    finally:
        log.close()
    _write_transcripts(folder / f"transcripts-run-{run}.md", items, results)
    return figures


def _result(
    rec: Recording, condition: str, text: str, g: Grade, took: float, seconds: float
) -> dict[str, Any]:
    return {
        "item": rec.item,
        "format": rec.kind,
        "condition": condition,
        "transcript": text,
        "names": list(g.names),
        "names_right": list(g.names_right),
        "names_missed": [n for n in g.names if n not in g.names_right],
        "word_errors": g.word_errors,
        "reference_words": g.reference_words,
        "wer": round(g.wer, 4),
        "seconds": took,
        "audio_seconds": round(seconds, 2),
    }


def dictation_figures(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per condition, overall and per format: names right, word error rate, seconds."""
    out: dict[str, Any] = {}
    for condition in CONDITIONS:
        mine = [r for r in results if r["condition"] == condition]
        table = _figures(mine)
        table["by_format"] = {
            kind: _figures([r for r in mine if r["format"] == kind])
            for kind in sorted({str(r["format"]) for r in mine})
        }
        out[condition] = table
    return out


def _figures(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    errors = sum(int(r["word_errors"]) for r in rows)
    ref = sum(int(r["reference_words"]) for r in rows)
    seconds = sum(float(r["seconds"]) for r in rows)
    audio = sum(float(r["audio_seconds"]) for r in rows)
    return {
        "recordings": len(rows),
        "names": sum(len(r["names"]) for r in rows),
        "names_right": sum(len(r["names_right"]) for r in rows),
        "word_errors": errors,
        "reference_words": ref,
        "wer": round(errors / ref, 4) if ref else 0.0,
        "seconds_per_capture": round(seconds / len(rows), 3) if rows else 0.0,
        "audio_seconds_per_capture": round(audio / len(rows), 3) if rows else 0.0,
        "real_time_factor": round(seconds / audio, 3) if audio else 0.0,
    }


def report(figs: Mapping[str, Any]) -> list[str]:
    lines = [f"{'':<13} {'names right':>11} {'WER':>6} {'s/capture':>9} {'x real time':>11}"]
    for condition in CONDITIONS:
        t = figs[condition]
        lines.append(_row(condition.replace("_", " "), t))
        for kind, f in t["by_format"].items():
            lines.append(_row(f"  {kind}", f))
    return lines


def _row(label: str, t: Mapping[str, Any]) -> str:
    names = f"{t['names_right']:g}/{t['names']:g}"
    return (
        f"{label:<13} {names:>11} {t['wer']:>6.3f} {t['seconds_per_capture']:>9.2f} "
        f"{t['real_time_factor']:>11.2f}"
    )


def _write_transcripts(
    path: Path, items: Sequence[Mapping[str, Any]], results: Sequence[Mapping[str, Any]]
) -> None:
    """The captures and their transcripts side by side, for a person to read."""
    out = ["# Dictation transcripts", ""]
    for item in items:
        out += [f"## {item['id']}", "", f"names: {', '.join(item['names']) or '(none)'}", ""]
        out += ["said:", "", *(f"> {line}" for line in str(item["text"]).splitlines()), ""]
        for r in (r for r in results if r["item"] == item["id"]):
            missed = f"; missed {', '.join(r['names_missed'])}" if r["names_missed"] else ""
            out.append(
                f"- {r['format']} {r['condition'].replace('_', ' ')} (WER {r['wer']:.2f}"
                f"{missed}): {r['transcript']}"
            )
        out.append("")
    path.write_text("\n".join(out), encoding="utf-8")


def _summary_head(
    options: DictationOptions,
    speech: SpeechSettings,
    datasets: Path,
    items: Sequence[Mapping[str, Any]],
    hint: str,
    folder: Path,
) -> dict[str, Any]:
    model = options.model.expanduser()
    return {
        "suite": "dictation",
        "about": ABOUT,
        "note": options.note,
        "date": date.today().isoformat(),
        "model": {"path": str(model), "bytes": model.stat().st_size if model.is_file() else None},
        **git_commit(),
        "runs": options.runs,
        "items": len(items),
        "limit": options.limit,
        "formats": list(options.formats),
        "voice": f"espeak-ng -v {options.voice}",
        "datasets": {DATASET: fixture.file_digest(datasets / DATASET)},
        "settings": {"speech": dataclasses.asdict(speech)},
        "hint": hint,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "folder": folder.name,
    }


def _header(echo: Echo, meta: Mapping[str, Any], folder: Path) -> None:
    commit = str(meta.get("commit", ""))[:10] + (" (with changes)" if meta.get("dirty") else "")
    echo(f"dictation: {ABOUT}")
    echo(f"model: {meta['model']['path']}; commit {commit or 'unknown'}")
    echo(f"{meta['runs']} run(s) of {meta['items']} capture(s) x {', '.join(meta['formats'])}")
    echo(f"hint: {meta['hint'] or '(empty: the vault has no names)'}")
    if meta["note"]:
        echo(f"NOTE: {meta['note']}")


def _write_summary(folder: Path, meta: Mapping[str, Any], figures: list[dict[str, Any]]) -> None:
    summary = {
        **meta,
        "runs_done": len(figures),
        # Seconds depend on what else the computer is doing: the load then, beside the start's.
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "figures": figures,
        "mean": mean_figures(figures),
        "min": mean_figures(figures, min),
        "max": mean_figures(figures, max),
        "files": sorted(p.name for p in folder.iterdir() if p.name != "summary.json"),
    }
    (folder / "summary.json").write_text(dumps_pretty(summary) + "\n", encoding="utf-8")


def dumps_pretty(record: Any) -> str:
    return json.dumps(json.loads(dumps(record)), ensure_ascii=False, indent=2)
