"""Benchmark of reading attachments: pages per second from the text layer and by OCR, the cost
of the extraction child, and the text-layer sizes the OCR threshold is chosen from. Prints JSON.

    PYTHONPATH=daemon .venv/bin/python eval_suite/bench_attachments.py

Every file is made here (fpdf2 and Pillow) from notes of the Logseq docs dev set
(../shared/devsets/logseq-docs/, read in place; --devset to point elsewhere), one note per
page: a text PDF, and the same pages as an image-only "scanned" PDF. Each is read by the real
extraction child (attachments/extraction.py, PDFium and Tesseract) as the daemon reads it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.attachments import makefiles  # noqa: E402

from commonplace.attachments.extraction import Options, extract  # noqa: E402
from commonplace.attachments.ocr import ocr_status  # noqa: E402


def _devset() -> Path:
    """../shared/devsets/logseq-docs from the checkout, or from a folder above a worktree."""
    for folder in REPO.parents:
        candidate = folder / "shared" / "devsets" / "logseq-docs"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "devsets" / "logseq-docs"


DEVSET = _devset()
PAGE_CHARS = 1500  # of each note put on its page (a page of 10-11 pt text holds about this)


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--devset", type=Path, default=DEVSET)
    p.add_argument("--text-pages", type=int, default=200)
    p.add_argument("--ocr-pages", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3, help="repeats of each timing (median kept)")
    return p.parse_args()


def page_texts(devset: Path, count: int) -> list[str]:
    """The first `count` notes of the dev set with some text, each cut to a page."""
    out: list[str] = []
    for path in sorted((devset / "vault" / "pages").glob("*.md")):
        text = printable(path.read_text(encoding="utf-8"))
        if len(text) >= 200:
            out.append(text[:PAGE_CHARS])
        if len(out) == count:
            break
    return out


def printable(text: str) -> str:
    """What fpdf2's built-in Helvetica can print (Latin-1), with runs of spaces kept short."""
    text = text.encode("latin-1", "replace").decode("latin-1")
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def timed(data: bytes, name: str, opts: Options, rounds: int) -> dict[str, Any]:
    times, got = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        got = extract(data, name, opts)
        times.append(time.perf_counter() - started)
    assert got is not None
    seconds = statistics.median(times)
    pages = len(got.pages)
    return {
        "pages": pages,
        "seconds": round(seconds, 3),
        "pages_per_s": round(pages / seconds, 2),
        "how": sorted({p.how for p in got.pages}),
        "problem": got.problem,
    }


def child_cost(work: Path, opts: Options, rounds: int) -> dict[str, float]:
    """One 1-page PDF read by the child, against PDFium in this process: the child's price."""
    import pypdfium2 as pdfium

    one = makefiles.text_pdf(work / "one.pdf", ["A single page of text. " * 20]).read_bytes()
    child = []
    for _ in range(rounds * 3):
        started = time.perf_counter()
        extract(one, "one.pdf", opts)
        child.append(time.perf_counter() - started)
    here = []
    for _ in range(rounds * 3):
        started = time.perf_counter()
        doc = pdfium.PdfDocument(one)
        doc[0].get_textpage().get_text_bounded()
        doc.close()
        here.append(time.perf_counter() - started)
    return {
        "child_ms": round(statistics.median(child) * 1000, 1),
        "in_process_ms": round(statistics.median(here) * 1000, 2),
    }


def layer_sizes(data: bytes, name: str, opts: Options) -> list[int]:
    """Characters (not spaces) of each page's text layer."""
    got = extract(data, name, Options(**{**opts.__dict__, "ocr": False}))
    return [len("".join(p.text.split())) for p in got.pages]


def main() -> None:
    args = parse_args()
    have_ocr = ocr_status(("eng",)).available
    opts = Options(
        ocr=have_ocr,
        languages="eng",
        below=50,
        max_pages=100_000,
        max_pixels=100_000_000,
        memory_mb=2048,
        seconds=3600,
    )
    texts = page_texts(args.devset, args.text_pages)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        text_pdf = makefiles.text_pdf(work / "text.pdf", texts).read_bytes()
        scans = makefiles.scanned_pdf(work / "scan.pdf", texts[: args.ocr_pages]).read_bytes()
        shot = work / "shot.png"
        makefiles.screenshot(shot, texts[0][:600])
        sizes = layer_sizes(text_pdf, "text.pdf", opts)
        scan_sizes = layer_sizes(scans, "scan.pdf", opts)
        out: dict[str, Any] = {
            "machine_cpus": __import__("os").cpu_count(),
            "ocr": have_ocr,
            "text_layer": timed(text_pdf, "text.pdf", opts, args.rounds),
            "child": child_cost(work, opts, args.rounds),
            "text_layer_chars": {
                "pages": len(sizes),
                "min": min(sizes),
                "p5": sorted(sizes)[len(sizes) // 20],
                "median": statistics.median(sizes),
                "under_50": sum(1 for n in sizes if n < 50),
            },
            "scanned_layer_chars_max": max(scan_sizes),
        }
        if have_ocr:
            out["ocr_pdf"] = timed(scans, "scan.pdf", opts, 1)
            out["ocr_screenshot"] = timed(shot.read_bytes(), "shot.png", opts, args.rounds)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
