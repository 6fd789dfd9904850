"""A 503 to a change that reached the server: "Nothing was changed" may be false.

A proxy in front of the server answers 503 also after it handed the request on and the
server took it (Envoy and Istio: "upstream connect error or disconnect/reset before headers",
response flags UC/UR), and RFC 9110 (15.6.4) promises nothing of what was done before a 503.
So the owner is told the change may have been made, and how to look; asking again is safe
(the same request makes the same UID, found as already on the calendar). The proxy in front of
the real Radicale plays the gateway: Radicale stores the event, the proxy answers 503.

"Now" is Monday 26 October 2026, 09:00 in London.
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from commonplace.assistant import Assistant, Refused, build_assistant
from commonplace.calendar import CalendarClient
from commonplace.calendar.wire import maybe_stored
from commonplace.config import Settings
from commonplace.llm import make_llm
from tests.assistant.conftest import NOW, call, tool_results
from tests.calendar.conftest import PASSWORD_ENV, calendar_settings
from tests.calendar.proxy import Proxy
from tests.fakes.ollama import FakeOllama
from tests.models import with_model

LONDON = ZoneInfo("Europe/London")
ADD = call("add_event", title="Boiler service", day="2026-11-05", start_time="14:00", minutes=60)


@pytest.fixture
def via_proxy(
    settings: Settings, proxy: Proxy, account: str, fake_ollama: FakeOllama
) -> tuple[Assistant, CalendarClient]:
    s = calendar_settings(settings, proxy.url, account, timeout_s=30.0, write="Personal")
    s = with_model(s, host=fake_ollama.url)
    calendar = CalendarClient(s, env=PASSWORD_ENV)
    return build_assistant(s, make_llm(s), clock=lambda: NOW, calendar=calendar), calendar


@pytest.fixture
def direct(cal_settings: Settings) -> CalendarClient:
    """Radicale itself, without the proxy: what is really stored (a generous wait, 30 s)."""
    config = dataclasses.replace(cal_settings.calendar, timeout_s=30.0)
    return CalendarClient(dataclasses.replace(cal_settings, calendar=config), env=PASSWORD_ENV)


async def test_a_503_after_the_server_stored_the_event_says_it_may_have_been_made(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    helper, _ = via_proxy
    fake_ollama.enqueue_chat(ADD, "Asked.")
    (question,) = (await helper.respond("Book the boiler service on 5 November at 2")).pending
    proxy.fail_once["PUT"] = 503
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "unconfirmed"
    message = refused.value.message
    assert "Nothing was changed" not in message
    assert message.startswith("The calendar at 127.0.0.1:")
    assert (
        "failed while handling the change (HTTP 503 Service Unavailable, which a proxy in front "
        "of the server also sends when the server took the change and then did not answer), so "
        "it may have been made, or not."
    ) in message
    assert message.endswith(
        'Check whether "Boiler service" is on Thursday 5 November at 14:00 (`commonplace '
        "calendar --date 2026-11-05`, or your calendar app) before asking again."
    )
    # it was made: "Nothing was changed" would have been false
    stored = [e for e in await direct.events_on(date(2026, 11, 5)) if e.title == "Boiler service"]
    assert [(e.start, e.end) for e in stored] == [
        (datetime(2026, 11, 5, 14, tzinfo=LONDON), datetime(2026, 11, 5, 15, tzinfo=LONDON))
    ]
    # asking again is safe: the same request is found as already on the calendar
    fake_ollama.enqueue_chat(ADD, "It's already there.")
    await helper.respond("Book the boiler service on 5 November at 2")
    assert tool_results(fake_ollama)[-1] == (
        'Error: "Boiler service" on Thursday 5 November at 14:00 is already on the calendar.'
    )
    assert len([e for e in await direct.events_on(date(2026, 11, 5)) if e.title[0] == "B"]) == 1


async def test_a_503_to_a_delete_that_reached_the_server_says_it_may_have_been_made(
    via_proxy: tuple[Assistant, CalendarClient],
    fake_ollama: FakeOllama,
    proxy: Proxy,
    direct: CalendarClient,
) -> None:
    helper, _ = via_proxy
    fake_ollama.enqueue_chat(call("delete_event", event="haircut"), "Asked.")
    (question,) = (await helper.respond("Cancel my haircut")).pending
    proxy.fail_once["DELETE"] = 503
    with pytest.raises(Refused) as refused:
        await helper.answer(question.id, yes=True)
    assert refused.value.code == "unconfirmed"
    assert "Nothing was changed" not in refused.value.message
    assert "(HTTP 503 Service Unavailable" in refused.value.message
    assert 'Check whether "Haircut" is still on Saturday 31 October at 10:00' in (
        refused.value.message
    )
    assert [e for e in await direct.events_on(date(2026, 10, 31)) if e.title == "Haircut"] == []


@pytest.mark.parametrize(
    ("status", "maybe"),
    [
        (500, True),
        (502, True),
        (503, True),  # also from a gateway after the server took the change
        (504, True),
        (520, True),  # a CDN's "unknown error" from the origin
        (524, True),  # a CDN's timeout after the origin took the request
        (501, False),  # Not Implemented: not performed (RFC 9110 15.6.2)
        (505, False),  # HTTP Version Not Supported (15.6.6)
        (507, False),  # Insufficient Storage: could not be performed (RFC 4918 11.5)
        (403, False),
        (409, False),
        (412, False),
        (429, False),  # refused before it ran
        (None, False),
    ],
)
def test_which_answers_to_a_change_may_follow_a_stored_change(
    status: int | None, maybe: bool
) -> None:
    assert maybe_stored(status) is maybe
