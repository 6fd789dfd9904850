"""Reading attachments in the extraction child: real PDFium, real Tesseract, real files made
here. Every broken or hostile file ends as a problem with a reason, never an exception."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from commonplace.attachments.extraction import Options, extract
from tests.attachments import makefiles
from tests.attachments.conftest import PHRASES, needs_tesseract, pages

OPTS = Options(
    ocr=True,
    languages="eng",
    below=50,
    max_pages=100,
    max_pixels=100_000_000,
    memory_mb=2048,
    seconds=120,
)
NO_OCR = Options(**{**OPTS.__dict__, "ocr": False})


def words(text: str) -> str:
    return " ".join(text.split())


def test_a_text_pdf_is_read_page_by_page_from_its_text_layer(tmp_path: Path) -> None:
    pdf = makefiles.text_pdf(tmp_path / "Manual.pdf", pages())
    got = extract(pdf.read_bytes(), "Manual.pdf", NO_OCR)
    assert got.problem == ""
    assert got.page_count == 3
    assert [p.number for p in got.pages] == [1, 2, 3]
    assert {p.how for p in got.pages} == {"text"}
    assert PHRASES[3] in words(got.pages[2].text)
    assert PHRASES[3] not in words(got.pages[1].text)


@needs_tesseract
def test_a_scanned_pdf_is_read_by_ocr_on_the_right_page(tmp_path: Path) -> None:
    pdf = makefiles.scanned_pdf(tmp_path / "Scan.pdf", pages())
    assert extract(pdf.read_bytes(), "Scan.pdf", NO_OCR).pages[2].text.strip() == ""
    got = extract(pdf.read_bytes(), "Scan.pdf", OPTS)
    assert got.problem == ""
    assert [p.how for p in got.pages] == ["ocr", "ocr", "ocr"]
    assert "quince hedge" in words(got.pages[2].text)
    assert "quince hedge" not in words(got.pages[0].text)


@needs_tesseract
def test_a_text_page_is_not_read_by_ocr(tmp_path: Path) -> None:
    pdf = makefiles.text_pdf(tmp_path / "Manual.pdf", pages())
    got = extract(pdf.read_bytes(), "Manual.pdf", OPTS)
    assert {p.how for p in got.pages} == {"text"}


@needs_tesseract
@pytest.mark.parametrize("suffix", [".png", ".jpg", ".webp"])
def test_a_screenshot_is_read_by_ocr(tmp_path: Path, suffix: str) -> None:
    image = makefiles.screenshot(tmp_path / f"shot{suffix}", PHRASES[3])
    got = extract(image.read_bytes(), image.name, OPTS)
    assert got.problem == "" and got.page_count == 1
    assert "beekeeper" in got.pages[0].text and got.pages[0].how == "ocr"


def test_without_ocr_an_image_gives_no_text_and_no_error(tmp_path: Path) -> None:
    image = makefiles.screenshot(tmp_path / "shot.png", PHRASES[3])
    got = extract(image.read_bytes(), "shot.png", NO_OCR)
    assert got.problem == "" and got.pages[0].text == "" and got.pages[0].how == "none"


def test_a_password_protected_pdf_is_a_problem_with_its_reason(tmp_path: Path) -> None:
    pdf = makefiles.encrypted_pdf(tmp_path / "Locked.pdf")
    got = extract(pdf.read_bytes(), "Locked.pdf", OPTS)
    assert (got.problem, got.reason) == ("encrypted", "password-protected: not read")
    assert got.pages == ()


def test_a_truncated_pdf_is_a_problem(tmp_path: Path) -> None:
    pdf = makefiles.truncated_pdf(tmp_path / "Cut.pdf", pages())
    got = extract(pdf.read_bytes(), "Cut.pdf", OPTS)
    assert got.problem == "malformed"
    assert "damaged or truncated" in got.reason


def test_garbage_named_pdf_or_png_is_a_problem(tmp_path: Path) -> None:
    assert extract(b"\x00" * 100, "x.pdf", OPTS).problem == "malformed"
    assert extract(b"not an image", "x.png", OPTS).problem == "malformed"


def test_a_pdf_over_the_page_limit_is_read_up_to_it(tmp_path: Path) -> None:
    pdf = makefiles.many_pages_pdf(tmp_path / "Huge.pdf", 10_000)
    got = extract(pdf.read_bytes(), "Huge.pdf", OPTS)
    assert got.page_count == 10_000
    assert len(got.pages) == OPTS.max_pages
    assert got.problem == "too_many_pages"
    assert "10,000 pages; the first 100 were read" in got.reason


def test_a_pixel_bomb_is_refused(tmp_path: Path) -> None:
    bomb = makefiles.pixel_bomb_png(tmp_path / "bomb.png")
    got = extract(bomb.read_bytes(), "bomb.png", OPTS)
    assert got.problem == "bomb" and got.pages == ()


@needs_tesseract
def test_a_file_over_the_time_limit_is_stopped_and_keeps_the_pages_read(tmp_path: Path) -> None:
    # 40 scanned pages take a minute of OCR; the limit is 3 s.
    pdf = makefiles.scanned_pdf(tmp_path / "Long.pdf", pages() * 13)
    opts = Options(**{**OPTS.__dict__, "seconds": 3.0})
    got = extract(pdf.read_bytes(), "Long.pdf", opts)
    assert got.problem == "too_slow"
    assert "took over 3 s" in got.reason
    assert len(got.pages) < 39
    assert got.seconds < 60
    # The child and its Tesseract are gone: no process reads the file any more.
    left = subprocess.run(["pgrep", "-f", "commonplace.attachments.child"], capture_output=True)
    assert str(tmp_path) not in left.stdout.decode()


def test_the_child_runs_this_checkout(tmp_path: Path) -> None:
    """The child imports the commonplace this process runs (installed or from a checkout)."""
    out = subprocess.run(
        [sys.executable, "-m", "commonplace.attachments.child"],
        input=b'{"kind": "image", "ocr": false, "max_pixels": 1000000}\nxx',
        capture_output=True,
        env=__import__("commonplace.attachments.extraction").attachments.extraction._child_env(),
        check=True,
    )
    assert b'"problem": "malformed"' in out.stdout
