"""A request for events (a calendar-query REPORT) answered with something that is not CalDAV.

The calendars are listed by the real Radicale behind the proxy; the REPORT alone is answered
in its place, as a sign-in page, a captive portal or a proxy does. caldav reads any 2xx body
without checking it is a multistatus: such an answer failed inside caldav by accident (a
TypeError quoting a missing href, an AttributeError on an empty body) with caldav's ERROR
tracebacks in the log and a sentence that did not say what came back, and a caldav that skipped
what it could not read would have made it "no events". Every path that lists events now says
what the answer was and what to do, and lists nothing.

"Now" is Monday 26 October 2026, 09:00 in London.
"""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from commonplace.assistant import build_assistant
from commonplace.briefing import make_briefing
from commonplace.calendar import CalendarClient, CalendarUnavailable
from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.llm import make_llm
from tests.assistant.conftest import NOW, call, tool_results
from tests.calendar.conftest import PASSWORD_ENV, calendar_settings
from tests.calendar.proxy import Proxy
from tests.calendar.test_servers import TUESDAY, at
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

SIGN_IN = (
    "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>"
    "<body><form>Sign in to the Wi-Fi</form></body></html>"
)
XHTML = "<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body>Log in</body></html>"
WHAT_TO_DO = "Sign in if a page asks you to, check [calendar] url, and try again."

ANSWERS = [
    pytest.param(200, "text/html; charset=utf-8", SIGN_IN, "a web page", id="html-200"),
    pytest.param(207, "text/html", SIGN_IN, "a web page", id="html-207"),
    pytest.param(200, "text/xml", "<html><body>Hi</body></html>", "a web page", id="html-as-xml"),
    pytest.param(200, "application/xhtml+xml", XHTML, "a web page", id="xhtml"),
    pytest.param(200, "", "", "an empty answer", id="empty-200"),
    pytest.param(207, "text/xml; charset=utf-8", "", "an empty answer", id="empty-207"),
    pytest.param(
        200, "application/xml", "<?xml version='1.0'?><error>no</error>", "XML of another kind"
    ),
    pytest.param(207, "text/xml", "<D:prop xmlns:D='DAV:'/>", "XML of another kind (<prop>)"),
    pytest.param(200, "application/json", '{"events": []}', "JSON", id="json"),
    pytest.param(200, "text/plain", "OK", "an answer of another kind (text/plain)", id="text"),
]


@pytest.fixture
def through_proxy(settings: Settings, proxy: Proxy, account: str) -> Settings:
    return calendar_settings(settings, proxy.url, account)


@pytest.mark.parametrize(("status", "kind", "body", "what"), ANSWERS)
async def test_an_answer_to_the_request_for_events_that_is_not_caldav_says_what_it_was(
    through_proxy: Settings,
    proxy: Proxy,
    status: int,
    kind: str,
    body: str,
    what: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = CalendarClient(through_proxy, env=PASSWORD_ENV)
    assert len(await client.events_on(TUESDAY)) == 3  # listed and read through the proxy
    proxy.answer["REPORT"] = (status, kind, body)
    caplog.set_level(logging.INFO)
    with pytest.raises(CalendarUnavailable) as unread:
        await client.events_on(TUESDAY)
    message = str(unread.value)
    assert message.startswith(f"The calendar at {proxy.url[7:-1]} answered the request for ")
    assert f"events with {what}" in message
    assert ", not CalDAV, so no events could be read" in message
    assert message.endswith(WHAT_TO_DO)
    # one warning line of ours, no traceback; caldav never read it (none of its ERROR lines)
    ours = [r for r in caplog.records if r.name.startswith("commonplace")]
    loud = [r for r in ours if r.levelno >= logging.WARNING]
    assert [r.levelname for r in loud] == ["WARNING"] and loud[0].exc_info is None
    assert f"answered with {what}" in loud[0].getMessage()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    proxy.answer.clear()  # the portal is gone: the next call reads again
    assert len(await client.events_on(TUESDAY)) == 3


async def test_an_empty_multistatus_is_still_a_day_without_events(
    through_proxy: Settings, proxy: Proxy
) -> None:
    """The check is on the answer's kind, not on its having events: a calendar with nothing
    on a day answers an empty multistatus, and that day is free."""
    client = CalendarClient(through_proxy, env=PASSWORD_ENV)
    empty = "<?xml version='1.0'?><D:multistatus xmlns:D='DAV:'/>"
    proxy.answer["REPORT"] = (207, "text/xml; charset=utf-8", empty)
    found = await client.events_on(TUESDAY)
    assert list(found) == [] and found.unreadable == 0


async def test_the_assistant_and_the_briefing_say_so_and_list_nothing(
    settings: Settings, proxy: Proxy, account: str, fake_ollama: FakeOllama
) -> None:
    s = calendar_settings(settings, proxy.url, account)
    s = with_model(s, host=fake_ollama.url)
    calendar = CalendarClient(s, env=PASSWORD_ENV)
    helper = build_assistant(s, make_llm(s), clock=lambda: NOW, calendar=calendar)
    proxy.answer["REPORT"] = (200, "text/html", SIGN_IN)

    fake_ollama.enqueue_chat(call("list_events", day="tuesday"), "Nothing, it seems.")
    await helper.respond("What's on tomorrow?")
    (told,) = tool_results(fake_ollama)
    assert "answered the request for events with a web page, not CalDAV" in told
    assert WHAT_TO_DO in told and "No events" not in told

    fake_ollama.enqueue_chat(call("find_events", words="dentist"), "Not found.")
    await helper.respond("When is the dentist?")
    told = tool_results(fake_ollama)[-1]
    assert "with a web page, not CalDAV" in told and "No event" not in told

    briefing = await make_briefing(s, TUESDAY, calendar=calendar, now=at(27, 7))
    assert briefing.text.startswith("Tuesday 27 October: Calendar unavailable.")
    assert "no events" not in briefing.text.casefold()


def test_commonplace_calendar_says_so_and_lists_nothing(
    through_proxy: Settings, proxy: Proxy
) -> None:
    proxy.answer["REPORT"] = (200, "text/html", SIGN_IN)
    result = CliRunner().invoke(
        cli, ["calendar", "--date", "2026-10-27"], obj={"settings": through_proxy}, env=PASSWORD_ENV
    )
    assert result.exit_code == 1
    assert "answered the request for events with a web page, not CalDAV" in result.output
    assert "No events" not in result.output
