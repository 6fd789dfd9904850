"""The extraction child: `python -m commonplace.attachments.child`, one file per process.

Reads one JSON line of options and then the file's bytes from stdin; writes one JSON line per
event to stdout: `{"pages": n}`, then `{"page": i, "text": ..., "how": "text" | "ocr"}` for each
page as soon as it is read (so a parent that stops us at its time limit keeps the pages done),
and last `{"problem": code, "reason": ...}` or `{"end": true}`.

This process may crash, hang or run out of memory on a hostile file (a decompression bomb, a
malformed PDF that sends PDFium in circles): the parent (extraction.py) kills it at its time
limit, and the memory limit set first thing here turns a bomb into a MemoryError. Pillow's own
pixel limit is made an error, and a PDF page is rendered for OCR at a scale that keeps it under
the same number of pixels.
"""

from __future__ import annotations

import io
import json
import sys
import warnings
from typing import IO, Any

RENDER_DPI = 200  # a page rendered for OCR: Tesseract reads 10-12 pt text well from 200 dpi


def emit(out: IO[str], **event: Any) -> None:
    out.write(json.dumps(event, ensure_ascii=False) + "\n")
    out.flush()


def limit_memory(megabytes: int) -> None:
    """Cap this process's address space (POSIX); a bomb then fails here, not the machine."""
    if megabytes <= 0:
        return
    try:
        import resource
    except ImportError:  # Windows: the time limit still holds
        return
    cap = megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def ocr_image(image: Any, languages: str) -> str:
    import pytesseract

    text: str = pytesseract.image_to_string(image, lang=languages)
    return text


def read_image(data: bytes, opts: dict[str, Any], out: IO[str]) -> None:
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = int(opts["max_pixels"])
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    try:
        image: Image.Image = Image.open(io.BytesIO(data))
        image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        emit(out, problem="bomb", reason="an image of too many pixels (a decompression bomb?)")
        return
    except Exception as exc:  # Pillow raises many kinds for a broken file
        emit(out, problem="malformed", reason=f"not a readable image ({type(exc).__name__})")
        return
    emit(out, pages=1)
    if not opts["ocr"]:
        emit(out, page=1, text="", how="none")
        emit(out, end=True)
        return
    if image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    emit(out, page=1, text=ocr_image(image, opts["languages"]), how="ocr")
    emit(out, end=True)


def read_pdf(data: bytes, opts: dict[str, Any], out: IO[str]) -> None:
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == pdfium.raw.FPDF_ERR_PASSWORD:
            emit(out, problem="encrypted", reason="password-protected: not read")
        elif code == pdfium.raw.FPDF_ERR_SECURITY:
            emit(out, problem="encrypted", reason="protected by an unsupported security handler")
        else:
            emit(out, problem="malformed", reason="not a readable PDF (damaged or truncated)")
        return
    total = len(doc)
    emit(out, pages=total)
    below = int(opts["below"])
    for i in range(min(total, int(opts["max_pages"]))):
        page = doc[i]
        textpage = page.get_textpage()
        text = textpage.get_text_bounded()
        textpage.close()
        how = "text"
        if opts["ocr"] and len("".join(text.split())) < below and has_image(page, pdfium):
            text, how = ocr_page(page, opts), "ocr"
        page.close()
        emit(out, page=i + 1, text=text, how=how)
    doc.close()
    emit(out, end=True)


def has_image(page: Any, pdfium: Any) -> bool:
    """Whether the page shows a picture (inside a form too): a page without one has nothing
    OCR could read (an empty page, a divider), and rendering it costs a second."""
    images = page.get_objects(filter=[pdfium.raw.FPDF_PAGEOBJ_IMAGE])
    return next(iter(images), None) is not None


def ocr_page(page: Any, opts: dict[str, Any]) -> str:
    """The page rendered at RENDER_DPI, or smaller when that would pass the pixel limit."""
    width, height = page.get_size()  # points: 1/72 inch
    scale = RENDER_DPI / 72
    pixels = width * scale * height * scale
    if pixels > opts["max_pixels"]:
        scale *= (opts["max_pixels"] / pixels) ** 0.5
    image = page.render(scale=scale, grayscale=True).to_pil()
    return ocr_image(image, opts["languages"])


def main() -> int:
    raw = sys.stdin.buffer
    opts = json.loads(raw.readline())
    data = raw.read()
    out = sys.stdout
    limit_memory(int(opts.get("memory_mb", 0)))
    try:
        if opts["kind"] == "pdf":
            read_pdf(data, opts, out)
        else:
            read_image(data, opts, out)
    except MemoryError:
        emit(out, problem="bomb", reason="needed more memory than allowed (a decompression bomb?)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
