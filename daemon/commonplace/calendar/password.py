"""The CalDAV app password: from the environment, or the first line of a file."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from commonplace.calendar.models import CalendarNotSetUp
from commonplace.config import CalendarSettings

PASSWORD_ENV = "COMMONPLACE_CALDAV_PASSWORD"


def read_password(settings: CalendarSettings, env: Mapping[str, str]) -> str:
    """The app password: COMMONPLACE_CALDAV_PASSWORD, else the first line of password_file."""
    if env.get(PASSWORD_ENV):
        return env[PASSWORD_ENV]
    if not settings.password_file:
        return ""
    path = Path(settings.password_file).expanduser()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise CalendarNotSetUp(
            f"The calendar password file {path} cannot be read ({reason}); check "
            "[calendar] password_file, or set COMMONPLACE_CALDAV_PASSWORD"
        ) from None
    return lines[0].strip() if lines else ""
