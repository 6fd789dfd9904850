"""Reading one attachment's text, page by page, in a child process with a time limit.

The parent side of child.py. A PDF's pages are read from its text layer; a page with fewer than
`ocr_below_chars` characters of text (a scan, a photo saved as PDF) and an image are read by OCR
when Tesseract is here (ocr.py). Whatever goes wrong with the file ends as an `Extraction` with
a problem and the pages read so far, never as an exception: an encrypted or damaged PDF, a
decompression bomb, a file that takes longer than `max_seconds` (the child is killed, with
Tesseract if it runs), or more pages than `max_pages` (the first ones are read).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from commonplace.attachments.kinds import is_pdf
from commonplace.attachments.ocr import ocr_status
from commonplace.config import Settings

EXTRACTOR_VERSION = 1  # bump when what is read from a file changes: every cached text is new
CHILD = "commonplace.attachments.child"


@dataclass(frozen=True)
class Page:
    number: int  # 1-based, as a PDF viewer counts
    text: str
    how: str  # "text" (the text layer), "ocr", or "none" (an image without an OCR engine)


@dataclass(frozen=True)
class Extraction:
    pages: tuple[Page, ...]
    page_count: int  # pages in the file (read or not)
    problem: str = ""  # "" | encrypted | malformed | bomb | too_many_pages | too_slow | crashed
    reason: str = ""  # for a person: "password-protected: not read"
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Extraction:
        pages = tuple(Page(int(p["number"]), str(p["text"]), str(p["how"])) for p in data["pages"])
        return cls(
            pages,
            int(data["page_count"]),
            str(data.get("problem", "")),
            str(data.get("reason", "")),
            float(data.get("seconds", 0.0)),
        )


@dataclass(frozen=True)
class Options:
    """What decides the text read from a file: part of its cache key (cache.py)."""

    ocr: bool
    languages: str  # Tesseract's form: "eng+deu"
    below: int
    max_pages: int
    max_pixels: int
    memory_mb: int
    seconds: float

    @classmethod
    def from_settings(cls, settings: Settings) -> Options:
        a = settings.attachments
        langs = tuple(a.ocr_languages) or ("eng",)
        ocr = a.ocr and ocr_status(langs).available
        return cls(
            ocr=ocr,
            languages="+".join(langs),
            below=a.ocr_below_chars,
            max_pages=a.max_pages,
            max_pixels=a.max_pixels,
            memory_mb=a.max_memory_mb,
            seconds=a.max_seconds,
        )

    @property
    def signature(self) -> str:
        """The extractor's version and the options, as a short key: another OCR language, or
        Tesseract installed since, reads every file again; a path never enters it."""
        raw = json.dumps({"v": EXTRACTOR_VERSION, **dataclasses.asdict(self)}, sort_keys=True)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


def content_key(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def extract(data: bytes, path: str, opts: Options) -> Extraction:
    """The text of the file whose bytes are `data` (its name `path` says PDF or image)."""
    kind = "pdf" if is_pdf(path) else "image"
    header = json.dumps(
        {
            "kind": kind,
            "ocr": opts.ocr,
            "languages": opts.languages,
            "below": opts.below,
            "max_pages": opts.max_pages,
            "max_pixels": opts.max_pixels,
            "memory_mb": opts.memory_mb,
        }
    ).encode()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_child_env(),
        start_new_session=os.name == "posix",  # its Tesseract goes with it when killed
    )
    timed_out = False
    try:
        out, err = proc.communicate(header + b"\n" + data, timeout=opts.seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(proc)
        out, err = proc.communicate()
    except BaseException:
        _kill(proc)
        proc.wait()
        raise
    seconds = time.monotonic() - started
    return _result(out, err, proc.returncode, timed_out, seconds, opts)


def _result(
    out: bytes, err: bytes, code: int, timed_out: bool, seconds: float, opts: Options
) -> Extraction:
    pages: list[Page] = []
    total, problem, reason, ended = 0, "", "", False
    for line in out.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line cut off by the kill
        if "pages" in event:
            total = int(event["pages"])
        elif "page" in event:
            pages.append(Page(int(event["page"]), str(event["text"]), str(event["how"])))
        elif "problem" in event:
            problem, reason = str(event["problem"]), str(event["reason"])
        elif event.get("end"):
            ended = True
    if problem:
        pass
    elif timed_out:
        problem = "too_slow"
        reason = (
            f"took over {opts.seconds:g} s to read; {_pages_read(pages, total)} "
            "(raise [attachments] max_seconds to read more)"
        )
    elif not ended:
        problem = "crashed" if b"MemoryError" not in err else "bomb"
        reason = (
            "needed more memory than allowed (a decompression bomb?)"
            if problem == "bomb"
            else f"the reader stopped ({_exit_said(code)}); {_pages_read(pages, total)}"
        )
    elif total > len(pages) and total > opts.max_pages:
        problem = "too_many_pages"
        reason = (
            f"has {total:,} pages; the first {len(pages):,} were read "
            "(raise [attachments] max_pages to read more)"
        )
    return Extraction(tuple(pages), total, problem, reason, seconds)


def _pages_read(pages: list[Page], total: int) -> str:
    if not pages:
        return "no page was read"
    of = f" of {total:,}" if total else ""
    return f"pages 1-{len(pages)}{of} were read"


def _exit_said(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-code).name}"
    return f"exit status {code}"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()


def _child_env() -> dict[str, str]:
    """This process's environment, with the folder holding this package first on the path:
    the child imports the same commonplace as we run, installed or from a checkout."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    env.setdefault("OMP_THREAD_LIMIT", "1")  # Tesseract: one core; the daemon is not alone
    return env
