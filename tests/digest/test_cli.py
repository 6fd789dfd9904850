"""`commonplace digest` and `commonplace push test`, run as the user runs them."""

from __future__ import annotations

import dataclasses
import json

from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import PushSettings, Settings
from commonplace.push import SubscriptionStore, push_folder
from commonplace.push.store import parse_subscription
from tests.digest.week_fixture import Filed
from tests.fakes.ollama import FakeOllama
from tests.models import with_model
from tests.push.receiver import PushReceiver

NOTIFICATION = (
    "Notification: 20 notes captured this week. To do: 3 overdue, 7 due in the next seven days."
)


def ready(settings: Settings, fake: FakeOllama) -> Settings:
    fake.chat_handler = lambda body: json.dumps({"week": "A week of Switchboard.", "todos": ""})
    return dataclasses.replace(
        with_model(settings, host=fake.url),
        push=PushSettings(
            contact="mailto:me@example.org", backoff_s=0.01, allow_http_loopback=True
        ),
    )


def invoke(settings: Settings, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), obj={"settings": settings})
    return result.exit_code, result.output


def test_digest_writes_once_and_says_where(
    settings: Settings, week: list[Filed], fake_ollama_thread: FakeOllama
) -> None:
    s = ready(settings, fake_ollama_thread)
    code, out = invoke(s, "digest", "--week", "2026-W43")
    assert code == 0, out
    assert NOTIFICATION in out
    assert "Wrote Digests/2026-W43.md" in out
    assert str(s.vault / "Digests/2026-W43.md") in out
    code, out = invoke(s, "digest", "--week", "2026-W43")
    assert code == 0 and NOTIFICATION in out
    assert "Digests/2026-W43.md was already written; left as it is" in out
    assert len(fake_ollama_thread.chat_requests()) == 1


def test_dry_run_prints_the_note_and_writes_nothing(
    settings: Settings, week: list[Filed], fake_ollama_thread: FakeOllama
) -> None:
    s = ready(settings, fake_ollama_thread)
    code, out = invoke(s, "digest", "--week", "2026w43", "--dry-run")
    assert code == 0, out
    assert "# Week 43: 19–25 October 2026" in out and NOTIFICATION in out
    assert "Dry run: would write Digests/2026-W43.md" in out
    assert not (s.vault / "Digests").exists()


def test_bad_and_future_weeks_are_refused(settings: Settings) -> None:
    code, out = invoke(settings, "digest", "--week", "43")
    assert code == 2 and "YYYY-Www" in out
    code, out = invoke(settings, "digest", "--week", "2999-W01")
    assert code == 2 and "has not started yet" in out


def test_digest_push_notifies_the_phone(
    settings: Settings,
    week: list[Filed],
    fake_ollama_thread: FakeOllama,
    receiver_thread: PushReceiver,
) -> None:
    s = ready(settings, fake_ollama_thread)
    sub = parse_subscription(receiver_thread.subscribe(), allow_http_loopback=True)
    SubscriptionStore(push_folder(s)).add(sub)
    code, out = invoke(s, "digest", "--week", "2026-W43", "--push")
    assert code == 0, out
    assert "Notified 1 of 1 subscribed phone(s)." in out
    (got,) = receiver_thread.received
    assert got.payload["title"] == "Weekly digest, week 43"
    assert got.payload["url"].startswith("obsidian://open?vault=vault&file=Digests%2F2026-W43")


def test_push_test_without_phones_says_what_to_do(settings: Settings) -> None:
    code, out = invoke(settings, "push", "test")
    assert code == 1 and "open the phone page" in out


def test_push_test_reports_each_phone(
    settings: Settings, fake_ollama_thread: FakeOllama, receiver_thread: PushReceiver
) -> None:
    s = ready(settings, fake_ollama_thread)
    store = SubscriptionStore(push_folder(s))
    store.add(parse_subscription(receiver_thread.subscribe("a"), allow_http_loopback=True))
    store.add(parse_subscription(receiver_thread.subscribe("b"), allow_http_loopback=True))
    receiver_thread.answer("b", 410)
    code, out = invoke(s, "push", "test")
    assert code == 0, out
    host = receiver_thread.url.split("/")[2]
    assert f"{host}: sent" in out
    assert f"{host}: gone (the phone unsubscribed; removed)" in out
    assert receiver_thread.received[0].payload["body"] == "Test notification: push works."
    assert len(store.all()) == 1
