"""The phone page's address as a QR code in the terminal, so the phone's camera opens it.

segno (BSD, pure Python, no dependencies, typed) draws it with Unicode half blocks: no image
file, no terminal colours, so it shows the same in any terminal and in a log.
"""

from __future__ import annotations

import io

import segno


def qr_text(url: str) -> str:
    code = segno.make(url, error="m")
    out = io.StringIO()
    code.terminal(out=out, compact=True, border=2)
    return out.getvalue()
