"""Retrieval over attachments: file MRR@10 and page accuracy, text layer and OCR. Prints JSON.

    PYTHONPATH=daemon .venv/bin/python eval_suite/eval_attachments.py \\
        [--ollama-host http://127.0.0.1:11435 --embed-model all-minilm]

The dev set is made at run time from the Logseq docs dev set (../shared/devsets/logseq-docs/,
read in place, nothing copied into the project): the notes that answer its one-note questions
(up to --max-note-bytes long) and other notes as distractors, --per-file notes to a PDF, each
note starting on a new page; the page range of every note is recorded as the PDF is written.
Two vaults hold the same pages: text PDFs (fpdf2), and "scanned" PDFs, each page of the text
PDF rendered to a 150 dpi picture (PDFium) with no text layer. Each vault is indexed by the
real index (attachments read by the real extraction child; OCR by Tesseract for the scans),
then every question is searched (hybrid, one result per file):

  file MRR@10     1/rank of the PDF holding the answering note in the top 10, else 0
  page accuracy   the best passage of that PDF is on one of the note's pages (0 if not found)

Without --ollama-host the fake Ollama's hashed bag-of-words embeddings are used (a smoke test,
not a figure); /work/shared/tools/minilm_ollama.py serves a real model (its header says how).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_attachments import DEVSET, printable  # noqa: E402
from fpdf import FPDF  # noqa: E402

from commonplace.config import load_settings  # noqa: E402
from commonplace.evals.fixture import on_ollama  # noqa: E402
from commonplace.index import Index  # noqa: E402
from commonplace.llm import make_llm  # noqa: E402


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--devset", type=Path, default=DEVSET)
    p.add_argument("--ollama-host", default="")
    p.add_argument("--embed-model", default="all-minilm")
    p.add_argument("--max-note-bytes", type=int, default=3000)
    p.add_argument("--distractors", type=int, default=20)
    p.add_argument("--per-file", type=int, default=4)
    p.add_argument("--variants", default="markdown,text,scanned")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--work", type=Path, help="keep the vaults here (default: a temp folder)")
    return p.parse_args()


@dataclasses.dataclass
class Placed:
    note: str  # the dev set's path of the note
    file: str  # the PDF it is in
    first: int  # its first page
    last: int


def choose(
    devset: Path, max_bytes: int, distractors: int
) -> tuple[list[dict[str, Any]], list[str]]:
    questions = [json.loads(x) for x in (devset / "questions.jsonl").read_text().splitlines() if x]
    vault = devset / "vault"
    usable = [
        q
        for q in questions
        if len(q["expected"]) == 1 and (vault / q["expected"][0]).stat().st_size <= max_bytes
    ]
    notes = list(dict.fromkeys(q["expected"][0] for q in usable))
    others = [
        f"pages/{p.name}"
        for p in sorted((vault / "pages").glob("*.md"))
        if f"pages/{p.name}" not in notes and 400 <= p.stat().st_size <= max_bytes
    ]
    step = max(1, len(others) // max(1, distractors))
    notes += others[::step][:distractors]
    return usable, notes


def text_pdfs(devset: Path, notes: list[str], per_file: int, folder: Path) -> list[Placed]:
    """The notes as text PDFs, each note from a new page; where each one landed."""
    placed: list[Placed] = []
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(0, len(notes), per_file):
        name = f"Handbook {i // per_file + 1:02d}.pdf"
        pdf = FPDF()
        pdf.set_font("helvetica", size=11)
        pdf.set_auto_page_break(True, margin=15)
        for note in notes[i : i + per_file]:
            title = Path(note).stem
            text = printable((devset / "vault" / note).read_text(encoding="utf-8"))
            pdf.add_page()
            first = pdf.page_no()
            pdf.set_font("helvetica", "B", 14)
            pdf.multi_cell(0, 8, printable(title), new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("helvetica", size=11)
            pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT", wrapmode="CHAR")
            placed.append(Placed(note, f"{folder.name}/{name}", first, pdf.page_no()))
        pdf.output(str(folder / name))
    return placed


def scanned_copies(source: Path, folder: Path, dpi: int = 150) -> None:
    """Each text PDF's pages rendered to pictures, put in an image-only PDF of the same name."""
    import pypdfium2 as pdfium

    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.pdf")):
        doc = pdfium.PdfDocument(str(path))
        out = FPDF()
        for page in doc:
            image = page.render(scale=dpi / 72, grayscale=True).to_pil()
            buf = io.BytesIO()
            image.save(buf, format="PNG")
            buf.seek(0)
            out.add_page()
            out.image(buf, x=0, y=0, w=210, h=297)
        doc.close()
        out.output(str(folder / path.name))


async def evaluate(
    vault: Path,
    data: Path,
    args: argparse.Namespace,
    usable: list[dict[str, Any]],
    placed: list[Placed],
) -> dict[str, Any]:
    env = {"COMMONPLACE_VAULT": str(vault), "COMMONPLACE_DATA": str(data)}
    settings = load_settings(env=env)
    if args.ollama_host:
        settings = on_ollama(settings, args.ollama_host, embed_model=args.embed_model)
    else:
        settings = on_ollama(settings, args.fake_url)
    where = {p.note: p for p in placed}
    index = Index.open(settings, make_llm(settings))
    try:
        started = time.perf_counter()
        await index.refresh()
        await index.read_attachments()
        indexed_s = time.perf_counter() - started
        rr, page_ok, pages_found = [], 0, 0
        misses: list[dict[str, Any]] = []
        for q in usable:
            target = where[q["expected"][0]]
            resp = await index.search(q["q"], limit=10, group_by_note=True)
            files = [r.path for r in resp.results]
            if args.verbose:
                print(q["id"], target.file, files[:3], resp.notice, file=sys.stderr)
            rank = files.index(target.file) + 1 if target.file in files else 0
            rr.append(1 / rank if rank else 0.0)
            hit = next((r for r in resp.results if r.path == target.file), None)
            if hit is not None:
                pages_found += 1
                ok = hit.page is not None and target.first <= hit.page <= target.last
                page_ok += ok
                if not ok:
                    misses.append(
                        {"id": q["id"], "page": hit.page, "want": [target.first, target.last]}
                    )
        status = index.status()
    finally:
        index.close()
    n = len(usable)
    return {
        "questions": n,
        "file_mrr@10": round(sum(rr) / n, 3),
        "page_accuracy": round(page_ok / n, 3),
        "page_accuracy_when_file_found": round(page_ok / pages_found, 3) if pages_found else 0.0,
        "index_seconds": round(indexed_s, 1),
        "chunks": status["chunks"],
        "page_misses": len(misses),
    }


def main() -> None:
    args = parse_args()
    if args.ollama_host:
        asyncio.run(run(args))
        return
    from tests.fakes.ollama import FakeOllama, run_in_thread

    fake = FakeOllama()
    fake.record = False
    with run_in_thread(fake) as url:
        args.fake_url = url
        asyncio.run(run(args))


async def run(args: argparse.Namespace) -> None:
    usable, notes = choose(args.devset, args.max_note_bytes, args.distractors)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        text_vault = work / "text" / "vault"
        placed = text_pdfs(args.devset, notes, args.per_file, text_vault / "Handbooks")
        out: dict[str, Any] = {
            "notes": len(notes),
            "pdfs": len({p.file for p in placed}),
            "pages": sum(p.last - p.first + 1 for p in placed),
            "embeddings": args.embed_model if args.ollama_host else "fake (hashed words)",
        }
        variants = args.variants.split(",")
        if "markdown" in variants:  # the same notes as Markdown: what the PDFs are compared with
            md_vault = work / "markdown" / "vault"
            (md_vault / "Notes").mkdir(parents=True, exist_ok=True)
            as_notes = []
            for p in placed:
                name = Path(p.note).name
                (md_vault / "Notes" / name).write_bytes(
                    (args.devset / "vault" / p.note).read_bytes()
                )
                as_notes.append(Placed(p.note, f"Notes/{name}", 0, 0))
            out["markdown"] = await evaluate(
                md_vault, work / "markdown" / "data", args, usable, as_notes
            )
        if "text" in variants:
            out["text_layer"] = await evaluate(
                text_vault, work / "text" / "data", args, usable, placed
            )
        if "scanned" in variants:
            scan_vault = work / "scanned" / "vault"
            scanned_copies(text_vault / "Handbooks", scan_vault / "Handbooks")
            out["ocr"] = await evaluate(scan_vault, work / "scanned" / "data", args, usable, placed)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
