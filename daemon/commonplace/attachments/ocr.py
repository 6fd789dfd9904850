"""Whether OCR can run here: Tesseract (the program) and pytesseract (its Python wrapper).

Without them text PDFs are still read from their text layer; pages without one and images are
not, and `doctor` says what OCR would add and how to install it.
"""

from __future__ import annotations

import functools
import importlib.util
import platform
import shutil
import subprocess
from dataclasses import dataclass


@dataclass(frozen=True)
class OcrStatus:
    available: bool  # Tesseract and pytesseract are both here, with every language asked for
    languages: tuple[str, ...]  # installed languages
    problem: str = ""  # why OCR does not run, for doctor
    action: str = ""  # what to do about it


def install_hint() -> str:
    if platform.system() == "Darwin":
        return "install Tesseract (brew install tesseract)"
    if platform.system() == "Windows":
        return (
            "install Tesseract (https://github.com/UB-Mannheim/tesseract/wiki) and add it to PATH"
        )
    return "install Tesseract (sudo apt-get install tesseract-ocr, or your system's package)"


@functools.lru_cache(maxsize=8)
def ocr_status(wanted: tuple[str, ...]) -> OcrStatus:
    """Asked once per process and language list (a program does not appear mid-run often; a
    restart notices it)."""
    program = shutil.which("tesseract")
    if program is None:
        return OcrStatus(False, (), "Tesseract is not installed", install_hint())
    if importlib.util.find_spec("pytesseract") is None:
        return OcrStatus(False, (), "pytesseract is not installed", "pip install pytesseract")
    try:
        listed = subprocess.run(
            [program, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return OcrStatus(False, (), f"Tesseract does not run ({exc})", install_hint())
    have = tuple(line.strip() for line in listed.splitlines()[1:] if line.strip())
    missing = [lang for lang in wanted if lang not in have]
    if missing:
        return OcrStatus(
            False,
            have,
            f"Tesseract has no data for {', '.join(missing)} (installed: {', '.join(have)})",
            f"install the language data (Debian: tesseract-ocr-{missing[0]}), or set "
            "[attachments] ocr_languages",
        )
    return OcrStatus(True, have)
