"""The assistant suite end to end: all 32 requests, a real Radicale started and stopped by the
runner, the recorded forecast, and the fake Ollama playing a scripted "model" that answers some
requests right and shows each failure kind on others. The figures mean nothing; what is tested
is that the runner's grades are exactly what the script was built to produce, item by item.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.evals import fixture
from tests.fakes import stand_in_models
from tests.fakes.ollama import FakeOllama

NOTE = "fake Ollama playing a script: these figures mean nothing"
Reply = str | dict[str, Any] | Callable[[dict[str, Any]], str]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}


def echo(body: dict[str, Any]) -> str:
    """A reply made of what the last tool said, so the facts are there when the tool was right."""
    said = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    return "Here is what I found. " + (said[-1] if said else "")


PROPOSED = "I've proposed that: answer the question below."

# Request -> the "model's" replies, one per model call in that request's conversation, and the
# grade the program must give. None: right.
SCRIPT: dict[str, tuple[list[Reply], str | None]] = {
    "cal-read-01": ([call("list_events", day="Thursday"), echo], None),
    "cal-read-02": ([call("find_events", words="dentist"), echo], None),
    "cal-read-03": ([call("list_events", day="Sunday"), echo], None),
    "cal-read-04": ([call("list_tasks"), echo], "wrong tool"),
    "cal-read-05": (["Let me look at Saturday for you."] * 5, "no tool called"),
    "cal-read-06": (  # announced, reminded once, then right
        ["Let me check that call.", call("find_events", words="Nettle Pay certification"), echo],
        None,
    ),
    "cal-read-07": ([call("list_events", day="today"), echo], None),
    "cal-read-08": ([call("list_events", day="Friday"), echo], None),
    "cal-change-01": (
        [call("move_event", event="1:1 with Marcus", new_time="16:00"), PROPOSED],
        None,
    ),
    "cal-change-02": (  # the wrong event moved
        [call("move_event", event="physio", new_day="Friday", new_time="10:00"), PROPOSED],
        "wrong proposal",
    ),
    "cal-change-03": (["I've cancelled Saturday's haircut."] * 5, "claimed a change"),
    "cal-change-04": (
        [
            call("add_event", title="Haircut", day="Saturday", start_time="2 pm", minutes="30"),
            PROPOSED,
        ],
        None,
    ),
    "cal-change-05": ([call("move_event", event="brunch", new_time="12:30"), PROPOSED], None),
    "cal-change-06": (
        [call("delete_event", event="chess with Sam", on_day="Wednesday"), PROPOSED],
        None,
    ),
    "cal-change-07": (  # the right question asked, then a claim the program corrects: wrong
        [
            call("add_event", title="Call with the plumber", day="Thursday", start_time="9am"),
            "Done! I've put the plumber in your calendar.",
        ],
        "claimed a change",
    ),
    "cal-change-08": (  # asked to go ahead, reminded once, then proposed
        [
            "Shall I move your physio to 11:00?",
            call("move_event", event="physio", new_time="11:00"),
            PROPOSED,
        ],
        None,
    ),
    "tasks-01": ([call("list_tasks", due_within_days=7), echo], None),
    "tasks-02": ([call("complete_task", task="timber"), PROPOSED], None),
    "tasks-03": ([call("add_task", text="Buy nails", due="Friday"), PROPOSED], None),
    "tasks-04": (
        [call("add_task", text="Renew the home insurance", due="2026-11-05"), PROPOSED],
        None,
    ),
    "tasks-05": ([call("list_tasks"), echo], None),
    "tasks-06": ([call("complete_task", task="window cleaner"), PROPOSED], None),
    "memory-01": ([call("remember", fact="Sam is allergic to peanuts"), PROPOSED], None),
    "memory-02": ([call("forget", words="meetings after 10"), PROPOSED], None),
    "memory-03": (["Your brother Sam lives in Leeds."], None),
    "weather-01": ([call("weather", day="Thursday"), echo], None),
    "weather-02": ([call("weather", day="tomorrow"), echo], None),
    "weather-03": ([call("weather", day="Sunday"), "No: Sunday looks dry."], None),
    "none-01": (["Why did the scarecrow win an award? He was outstanding in his field."], None),
    "none-02": ([call("list_tasks"), "You're welcome!"], "tool when none was needed"),
    "none-03": (["Lisbon."], None),
    "none-04": (["Gracias."], None),
}


def scripted_model(texts: dict[str, str]) -> Callable[[dict[str, Any]], Any]:
    """Look up the request by the owner's words; the reply is the n-th of its script, n being
    how many times the model has spoken in this conversation."""

    def model(body: dict[str, Any]) -> Any:
        owner = next(m["content"] for m in body["messages"] if m["role"] == "user")
        replies, _ = SCRIPT[texts[owner]]
        spoken = sum(1 for m in body["messages"] if m["role"] == "assistant")
        reply = replies[min(spoken, len(replies) - 1)]
        return reply(body) if callable(reply) else reply

    return model


def tree_digest(*folders: Path) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def datasets(tmp_path: Path) -> Path:
    """The real assistant dataset and sample week, unchanged."""
    folder = tmp_path / "datasets"
    folder.mkdir()
    real = fixture.datasets_dir()
    shutil.copyfile(real / "assistant.jsonl", folder / "assistant.jsonl")
    shutil.copytree(real / "assistant", folder / "assistant")
    return folder


def test_the_runner_grades_what_the_script_was_built_to_produce(
    fake_ollama_thread: FakeOllama, datasets: Path, tmp_path: Path
) -> None:
    items = fixture.load_jsonl(datasets / "assistant.jsonl", ("id", "text"))
    assert len(items) == 32 and set(SCRIPT) == {i["id"] for i in items}
    fake_ollama_thread.chat_handler = scripted_model({i["text"]: i["id"] for i in items})
    real = fixture.REPO
    before = tree_digest(real / "vault_fixture", real / "eval_suite" / "datasets")
    threads_before = {t.ident for t in threading.enumerate()}
    out = tmp_path / "runs"

    result = CliRunner().invoke(
        cli,
        ["eval", "assistant", "--datasets", str(datasets), "--out", str(out), "--note", NOTE],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output

    [folder] = list(out.iterdir())
    records = {
        r["item"]: r
        for r in map(json.loads, (folder / "run-1.jsonl").read_text().splitlines())
        if r["type"] == "item"
    }
    got = {item: (r["grade"]["miss"] or None) for item, r in records.items()}
    assert got == {item: want for item, (_, want) in SCRIPT.items()}

    # What the program asked, structurally, for a few of the right ones.
    [marcus] = records["cal-change-01"]["proposals"]
    assert marcus["kind"] == "move_event" and marcus["title"] == "1:1 with Marcus"
    assert (
        marcus["question"].endswith("(this occurrence only)?") or "occurrence" in marcus["question"]
    )
    [timber] = records["tasks-02"]["proposals"]
    assert timber["text"] == "Order timber for the shed roof"
    [physio] = records["cal-change-02"]["proposals"]
    assert physio["title"] == "Physio with Rachel"  # the wrong event: graded wrong
    assert records["cal-read-06"]["reminders"] == ["announced"]
    assert records["cal-change-08"]["reminders"] == ["asked_to_go_ahead"]
    assert records["cal-change-03"]["corrections"]  # the claim was corrected for the owner
    [plumber] = records["cal-change-07"]["proposals"]  # the right question, yet corrected
    assert plumber["kind"] == "add_event" and records["cal-change-07"]["corrections"]

    summary = json.loads((folder / "summary.json").read_text())
    figures = summary["figures"][0]
    assert figures["right"] == 26 and figures["requests"] == 32
    assert figures["misses"]["wrong tool"] == 1 and figures["misses"]["claimed a change"] == 2
    assert "right (program): 26 of 32" in result.output
    assert f"NOTE: {NOTE}" in result.output
    assert "missed, wrong proposal: 1 (cal-change-02)" in result.output
    calls = [
        r
        for r in map(json.loads, (folder / "run-1.jsonl").read_text().splitlines())
        if r["type"] == "llm_call"
    ]
    assert len(calls) >= 32 and all(c["item"] for c in calls)  # every model call kept, per item
    assert (folder / "sheet.md").is_file()

    # The runner stopped what it started and changed no fixture.
    leftover = [t for t in threading.enumerate() if t.ident not in threads_before and t.is_alive()]
    assert not [t for t in leftover if "fake-ollama" not in t.name], leftover
    assert tree_digest(real / "vault_fixture", real / "eval_suite" / "datasets") == before


@pytest.mark.parametrize(
    ("stand_in", "right", "misses"),
    [
        # Claims every change and calls nothing: every reply corrected, so none is right.
        (stand_in_models.claims_changes, 0, {"claimed a change": 32}),
        # Jokes: right only where no tool and no fact is needed (none-01 to none-04);
        # "Where does my brother live?" needs no tool but a fact (Leeds).
        (
            stand_in_models.tells_jokes,
            4,
            {"no proposal": 14, "no tool called": 13, "facts missing": 1},
        ),
    ],
    ids=["claims-changes", "tells-jokes"],
)
def test_known_bad_stand_ins_score_what_they_must(
    fake_ollama_thread: FakeOllama,
    datasets: Path,
    tmp_path: Path,
    stand_in: Callable[[dict[str, Any]], str],
    right: int,
    misses: dict[str, int],
) -> None:
    fake_ollama_thread.chat_handler = stand_in
    out = tmp_path / "runs"
    result = CliRunner().invoke(
        cli,
        ["eval", "assistant", "--datasets", str(datasets), "--out", str(out), "--note", NOTE],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    [folder] = list(out.iterdir())
    figures = json.loads((folder / "summary.json").read_text())["figures"][0]
    assert (figures["right"], figures["requests"]) == (right, 32)
    assert {k: v for k, v in figures["misses"].items() if v} == misses
    assert f"right (program): {right} of 32" in result.output
    if right:
        assert figures["by_kind"]["none"] == {"right": 4, "of": 5}
        assert sorted(i for i in SCRIPT if i.startswith("none-")) == sorted(
            set(SCRIPT) - {i for v in figures["missed"].values() for i in v}
        )
    else:
        assert figures["corrections"] == 32
