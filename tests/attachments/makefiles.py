"""PDFs and images made at test time: text PDFs (fpdf2), image-only "scanned" PDFs and
screenshots (Pillow's own font, so no system font is needed), and hostile ones."""

from __future__ import annotations

import io
from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont


def text_pdf(path: Path, pages: list[str]) -> Path:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 7, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


def picture(text: str, width: int = 1400, size: int = 30) -> Image.Image:
    """The text drawn black on white, wrapped to the width, as a scanner or a screen shows it."""
    font = ImageFont.load_default(size=size)
    words, lines, line = text.split(), [], ""
    for word in words:
        trial = f"{line} {word}".strip()
        if font.getlength(trial) > width - 80 and line:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    height = 80 + len(lines) * int(size * 1.5)
    image = Image.new("L", (width, max(height, 200)), 255)
    draw = ImageDraw.Draw(image)
    for i, ln in enumerate(lines):
        draw.text((40, 40 + i * int(size * 1.5)), ln, font=font, fill=0)
    return image


def scanned_pdf(path: Path, pages: list[str]) -> Path:
    """Each page an image of its text, no text layer (what a scanner makes)."""
    pdf = FPDF()
    for text in pages:
        pdf.add_page()
        buf = io.BytesIO()
        picture(text).save(buf, format="PNG")
        buf.seek(0)
        pdf.image(buf, x=10, y=10, w=190)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


def screenshot(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    picture(text).convert("RGB").save(path)
    return path


def encrypted_pdf(path: Path, text: str = "a secret page") -> Path:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    pdf.cell(0, 10, text)
    pdf.set_encryption(owner_password="owner", user_password="user")
    pdf.output(str(path))
    return path


def truncated_pdf(path: Path, pages: list[str]) -> Path:
    text_pdf(path, pages)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def many_pages_pdf(path: Path, count: int) -> Path:
    """`count` empty pages, made with PDFium itself (fpdf2 takes seconds for 10,000)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument.new()
    for _ in range(count):
        doc.new_page(200, 200)
    doc.save(str(path))
    doc.close()
    return path


def pixel_bomb_png(path: Path, side: int = 12_000) -> Path:
    """A PNG that says it is side x side pixels, in a few hundred KB: a decompression bomb."""
    Image.MAX_IMAGE_PIXELS = None
    Image.new("1", (side, side), 0).save(path, optimize=True)
    return path
