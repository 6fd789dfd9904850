"""GET /api/tasks: the daemon's kept reader of the to-dos, for the MCP server and scripts."""

from __future__ import annotations

import pytest

from commonplace.assistant.tasks import TaskReader, TasksNotReady
from commonplace.config import Settings
from commonplace.server.context import Services
from tests.assistant.conftest import TASKS, write
from tests.server.conftest import ClientFactory


@pytest.fixture
def task_settings(web_settings: Settings) -> Settings:
    write(web_settings.vault, "Tasks.md", TASKS)
    return web_settings


class CountingReader(TaskReader):
    """The real reader, counting how often the list was asked of it."""

    calls = 0

    def open_tasks_within(self, seconds: float | None = None) -> list:  # type: ignore[type-arg]
        self.calls += 1
        return super().open_tasks_within(seconds)


async def test_the_open_todos_by_due_date_from_the_daemons_reader(
    make_client: ClientFactory, task_settings: Settings
) -> None:
    reader = CountingReader(task_settings)
    client = await make_client(task_settings, Services(tasks=reader))
    week = await client.get("/api/tasks", params={"due_within_days": "7", "today": "2026-10-26"})
    everything = await client.get("/api/tasks", params={"today": "2026-10-26"})
    assert week.status == everything.status == 200
    week_body, all_body = await week.json(), await everything.json()
    assert reader.calls == 2
    assert week_body["today"] == "2026-10-26"
    assert week_body["tasks"][0] == {
        "text": "Order timber for the shed roof",
        "due": "2026-10-23",
        "due_day": "Friday 23 October",
        "overdue": True,
        "path": "Tasks.md",
        "note": "Tasks",
    }
    assert all(t["due"] and t["due"] <= "2026-11-02" for t in week_body["tasks"])
    assert len(all_body["tasks"]) > len(week_body["tasks"]) and all_body["more"] == 0
    assert "Book the chimney sweep" in [t["text"] for t in all_body["tasks"] if not t["due"]]
    assert "Renew the car tax" not in [t["text"] for t in all_body["tasks"]]  # ticked


async def test_an_edit_is_in_the_next_list(
    make_client: ClientFactory, task_settings: Settings
) -> None:
    client = await make_client(task_settings, Services(tasks=TaskReader(task_settings)))
    first = await (await client.get("/api/tasks")).json()
    note = task_settings.vault / "Tasks.md"
    note.write_text(note.read_text() + "\n- [ ] Oil the garden gate\n")
    then = await (await client.get("/api/tasks")).json()
    texts = [t["text"] for t in then["tasks"]]
    assert "Oil the garden gate" in texts and len(texts) == len(first["tasks"]) + 1


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"due_within_days": "-1"}, "due_within_days"),
        ({"due_within_days": str(10**30)}, "3660"),
        ({"due_within_days": "soon"}, "whole number"),
        ({"today": "26/10/2026"}, "YYYY-MM-DD"),
        # the last day there is, and ten years on from it: a 500 (OverflowError) before
        ({"today": "9999-12-31", "due_within_days": "3660"}, "within ten years"),
        ({"today": "0001-01-01"}, "within ten years"),
    ],
)
async def test_bad_parameters_are_a_sentence(
    make_client: ClientFactory, task_settings: Settings, params: dict[str, str], word: str
) -> None:
    client = await make_client(task_settings, Services(tasks=TaskReader(task_settings)))
    response = await client.get("/api/tasks", params=params)
    assert response.status == 400
    assert word in (await response.json())["error"]["message"]


async def test_without_a_reader_or_before_the_first_read_it_says_so(
    make_client: ClientFactory, task_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = await make_client(task_settings, Services())
    missing = await bare.get("/api/tasks")
    assert missing.status == 503
    assert (await missing.json())["error"]["code"] == "tasks_unavailable"

    reader = TaskReader(task_settings)

    def not_yet(seconds: float | None = None) -> list:  # type: ignore[type-arg]
        raise TasksNotReady("the task list is still being read for the first time")

    monkeypatch.setattr(reader, "open_tasks_within", not_yet)
    client = await make_client(task_settings, Services(tasks=reader))
    waiting = await client.get("/api/tasks")
    body = await waiting.json()
    assert waiting.status == 503 and waiting.headers["Retry-After"] == "30"
    assert body["error"]["code"] == "tasks_not_ready"
    assert "still being read" in body["error"]["message"]
