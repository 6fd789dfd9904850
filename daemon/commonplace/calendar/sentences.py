"""What the calendar client tells the owner when something is not right, one sentence each,
with what to do. Worded here so the client's code reads as what it does."""

from __future__ import annotations

from dataclasses import dataclass

from commonplace.calendar.password import PASSWORD_ENV
from commonplace.calendar.wire import maybe_stored, reason

NOT_SET_UP = (
    "The calendar is not set up: set [calendar] url and username in commonplace.toml and put "
    "the app password in the file named by password_file (see the docs' calendar how-to)."
)


@dataclass(frozen=True)
class Sentences:
    """The sentences about one server (`where`: its host) and account."""

    where: str
    timeout_s: float
    username: str
    in_doctor: bool  # its sentences then do not send the owner to run doctor

    def slow(self) -> str:
        return (
            f"The calendar at {self.where} did not answer within "
            f"{self.timeout_s:g} s. Try again later, or raise [calendar] timeout_s."
        )

    def unconfirmed(self, exc: Exception | None = None) -> str:
        """What happened to a change that went out, as far as anyone can tell."""
        import niquests
        from caldav.lib import error as dav_error

        if exc is None or isinstance(exc, niquests.exceptions.Timeout):
            what = f"did not answer the change within {self.timeout_s:g} s"
        elif isinstance(exc, dav_error.DAVError):
            status = getattr(exc, "status", None)
            what = "failed while handling the change"
            if status == 503:
                what += (
                    " (HTTP 503 Service Unavailable, which a proxy in front of the server also "
                    "sends when the server took the change and then did not answer)"
                )
            elif maybe_stored(status):
                what += f" (HTTP {status})"
        else:
            what = f"broke off the connection before answering the change ({reason(exc)})"
        return f"The calendar at {self.where} {what}, so it may have been made, or not."

    def forbidden(self) -> str:
        return (
            f"The calendar at {self.where} refused the change (HTTP 403 Forbidden): this "
            "account may read that calendar but not change it (shared with you read-only, or "
            "a subscription). Make the change in your calendar app; new events go to the "
            "calendar [calendar] write names."
        )

    def nothing_to_read(self, *, found: int) -> str:
        if found:
            fix = " Run `commonplace doctor` to see the calendars there, and fix [calendar] read."
            if self.in_doctor:
                fix = " Fix [calendar] read with names from the calendars listed above."
            return (
                f"None of the calendars [calendar] read names is at {self.where}, so none was "
                "read." + fix
            )
        return (
            f"The calendar at {self.where} shows no calendars for "
            f"{self.username or '(no username)'}, so none was read: [calendar] url may "
            "not be the account's CalDAV address, or the account has no calendar yet. Run "
            "`commonplace doctor` to see what it finds."
        )

    def no_access(self) -> str:
        return (
            f"The calendar at {self.where} would not let "
            f"{self.username or '(no username)'} read it (HTTP 403 Forbidden): the "
            "password may well be right, but this account has no access at that address. Check "
            "[calendar] url is your own account's CalDAV address, and that the account may read "
            "those calendars." + self.see_doctor("to list the calendars it can read")
        )

    def see_doctor(self, why: str) -> str:
        """The pointer to `commonplace doctor`, except in doctor's own sentences."""
        return "" if self.in_doctor else f" Run `commonplace doctor` {why}."

    def web_page(self) -> str:
        return (
            f"The calendar at {self.where} answered with a web page, not CalDAV: [calendar] url "
            "is not the account's CalDAV address (a calendar's web page, or a sign-in page put "
            "in front of it, like a Wi-Fi login). Check [calendar] url."
        )

    def not_calendar_data(self, what: str) -> str:
        return (
            f"The calendar at {self.where} answered the request for events with {what}, not "
            "CalDAV, so no events could be read: something in front of the server may have "
            "answered in its place (a sign-in page, like a Wi-Fi login, or a proxy), or "
            "[calendar] url is not the account's CalDAV address. Sign in if a page asks you "
            "to, check [calendar] url, and try again."
        )

    def refused(self) -> str:
        return (
            f"The calendar at {self.where} refused the login for "
            f"{self.username or '(no username)'}. Check [calendar] username and the app "
            f"password (in [calendar] password_file or {PASSWORD_ENV}); many providers need an "
            "app password, not your usual one."
        )
