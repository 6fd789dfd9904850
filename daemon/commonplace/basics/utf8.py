"""Whether a decoded JSON value can be written as UTF-8."""

from __future__ import annotations

import json
from typing import Any


def encodable(value: Any) -> bool:
    """JSON may spell half a UTF-16 pair (\\ud800) on its own; Python decodes it to a string
    that can be neither written to a file, sent to the model nor answered over a transport."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
