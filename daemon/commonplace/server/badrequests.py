"""Malformed HTTP requests logged as one line, not as a traceback at ERROR.

aiohttp logs every request its parser refuses (a duplicate Host header, a header line over the
limit, Content-Length with Transfer-Encoding) with `logger.exception`: about a dozen lines at
ERROR for each, from anyone who can reach the port (a scanner on the tailnet, a broken client).
The request was answered 400 and nothing in the daemon failed, so the log says that in one
WARNING line, with the parser's reason cut short (it quotes the bytes the client sent).
"""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError

LOGGER = "aiohttp.server"
MAX_REASON = 120  # characters of the parser's reason kept in the line


class MalformedRequests(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, HttpProcessingError) or not 400 <= (exc.code or 0) < 500:
            return True
        reason = " ".join(str(exc.message or type(exc).__name__).split())
        if len(reason) > MAX_REASON:
            reason = reason[: MAX_REASON - 1] + "…"
        remote = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
        record.msg = "refused a malformed HTTP request from %s (HTTP %d): %s"
        record.args = (remote, exc.code, reason)
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text = None, None
        return True


def quiet_malformed_requests() -> None:
    """Install the filter on aiohttp's server logger (once)."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(f, MalformedRequests) for f in logger.filters):
        logger.addFilter(MalformedRequests())
