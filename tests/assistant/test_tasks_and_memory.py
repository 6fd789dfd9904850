"""The vault's tasks and the memory note: read with the vault parser, changed one line at a time,
only through actions whose question is written from the real line."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest

from commonplace.assistant.actions import Stale, ToolError
from commonplace.assistant.gate import Proposal, Refused, confirm
from commonplace.assistant.memory import (
    AddMemory,
    RemoveMemory,
    find_line,
    memory_for_instructions,
    memory_lines,
)
from commonplace.assistant.tasks import (
    AddTask,
    CompleteTask,
    TaskReader,
    find_task,
    list_text,
)
from commonplace.assistant.vaultfiles import read_snapshot
from commonplace.config import Settings
from tests.assistant.conftest import MEMORY, NOW, TASKS, write

TODAY = date(2026, 10, 26)


@pytest.fixture
def s(settings: Settings, task_vault: Path) -> Settings:
    return settings


def test_open_tasks_come_from_the_tasks_note_and_the_owners_notes(s: Settings) -> None:
    write(s.vault, "Inbox/2026-10-26 0800.md", "- [ ] a capture's to-do (due 2026-10-27)\n")
    write(s.vault, "Digests/2026-W43.md", "- [ ] Order timber for the shed roof (due 2026-10-23)\n")
    tasks = TaskReader(s).open_tasks()
    texts = [t.text for t in tasks]
    assert texts[0] == "Order timber for the shed roof"  # overdue first
    assert "Renew the car tax" not in texts  # done
    assert "a capture's to-do" not in texts  # inbox: filed later with its to-dos
    assert texts.count("Order timber for the shed roof") == 1  # digests repeat, never count
    assert "Book MOT and service at Gloucester Road Garage" in texts  # Areas/Car.md
    dated = [t.due for t in tasks if t.due is not None]
    assert dated == sorted(dated)


def test_the_list_the_model_reads_cannot_be_misread(s: Settings) -> None:
    text = list_text(TaskReader(s).open_tasks(), TODAY, 7, "")
    assert text.startswith("Open tasks, today being Monday 26 October 2026 (2026-10-26, today)")
    assert (
        '- "Order timber for the shed roof", overdue, was due Friday 23 October 2026 '
        "(2026-10-23, 3 days ago), in the tasks note" in text
    )
    assert "Book the chimney sweep" not in text  # no due date, not asked for
    assert "(Car)" not in text and 'in the note "Car"' not in text  # due 2026-11-04: later


def test_a_task_is_found_by_words_never_by_number(s: Settings) -> None:
    tasks = TaskReader(s).open_tasks()
    assert find_task(tasks, "the timber order", TODAY).text == "Order timber for the shed roof"
    with pytest.raises(ToolError, match="'task 3' is a number; name the task with words"):
        find_task(tasks, "task 3", TODAY)
    with pytest.raises(ToolError, match="no open task matches 'the hedge'"):
        find_task(tasks, "the hedge", TODAY)
    with pytest.raises(ToolError, match="several open tasks match 'book'"):
        find_task(tasks, "book", TODAY)


async def test_ticking_changes_exactly_that_line(s: Settings) -> None:
    action = CompleteTask(s)
    params = {"path": "Tasks.md", "line": 2}
    seen = await action.describe(params, NOW)
    assert seen.question == 'Tick off "Order timber for the shed roof (due Friday 23 October)"?'
    proposal = Proposal("2026-10-26-ab", "complete_task", params, seen.question, "2026-10-26")
    message = await confirm({action.kind: action}, proposal, NOW)
    assert message == 'Ticked off "Order timber for the shed roof (due Friday 23 October)".'
    before, after = TASKS.splitlines(), (s.vault / "Tasks.md").read_text().splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [2]
    assert after[2] == "- [x] Order timber for the shed roof (due 2026-10-23)"


async def test_a_line_that_moved_is_refused_and_nothing_changes(s: Settings) -> None:
    action = CompleteTask(s)
    params = {"path": "Tasks.md", "line": 5}  # "Book the chimney sweep"
    seen = await action.describe(params, NOW)
    proposal = Proposal("2026-10-26-ab", "complete_task", params, seen.question, "2026-10-26")
    edited = TASKS.replace("- [ ] Order timber for the shed roof (due 2026-10-23)\n", "")
    write(s.vault, "Tasks.md", edited)
    with pytest.raises(Refused) as refused:
        await confirm({action.kind: action}, proposal, NOW)
    assert refused.value.code == "changed"
    assert (s.vault / "Tasks.md").read_text() == edited


async def test_windows_line_endings_are_kept(s: Settings) -> None:
    write(s.vault, "Tasks.md", TASKS.replace("\n", "\r\n"))
    action = CompleteTask(s)
    params = {"path": "Tasks.md", "line": 3}
    seen = await action.describe(params, NOW)
    await action.run(params, seen, NOW)
    data = (s.vault / "Tasks.md").read_bytes()
    assert b"- [x] Buy birthday card for Sam (due 2026-10-28)\r\n" in data
    assert data.count(b"\r\n") == TASKS.count("\n") and b"\n" not in data.replace(b"\r\n", b"")


def test_each_call_sees_notes_edited_added_and_removed_since_the_last(s: Settings) -> None:
    """The list is sorted again only when something changed: every kind of change counts."""
    reader = TaskReader(s)
    first = reader.open_tasks()
    assert reader.open_tasks() == first  # nothing changed: the same list
    write(s.vault, "Projects/New.md", "- [ ] Fit the gutter (due 2026-10-20)\n")
    assert reader.open_tasks()[0].text == "Fit the gutter"
    path = s.vault / "Projects/New.md"
    path.write_text("- [x] Fit the gutter (due 2026-10-20)\n- [ ] Paint the gutter\n")
    texts = [t.text for t in reader.open_tasks()]
    assert "Fit the gutter" not in texts and "Paint the gutter" in texts
    path.unlink()
    assert reader.open_tasks() == first


def test_a_list_read_ahead_is_not_read_again_and_stays_true(
    s: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon reads the task list ahead (a big vault's first read nears the tool's
    timeout): the first list_tasks then parses nothing, and still sees an edit made after."""
    from commonplace.assistant import tasks as tasks_module

    expected = TaskReader(s).open_tasks()
    reads: list[str] = []
    real = tasks_module.read_note

    def counted(vault: Path, path: str, *args: object) -> object:
        reads.append(path)
        return real(vault, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(tasks_module, "read_note", counted)
    reader = TaskReader(s)
    assert reader.warm(batch=2) is True
    notes = len(reads)
    assert notes > 2  # several batches
    assert reader.open_tasks() == expected
    assert len(reads) == notes  # nothing parsed again
    write(s.vault, "Projects/New.md", "- [ ] Fit the gutter (due 2026-10-20)\n")
    assert reader.open_tasks()[0].text == "Fit the gutter"
    assert reads[notes:] == ["Projects/New.md"]


def test_a_read_ahead_stops_when_asked(s: Settings) -> None:
    import threading

    stop = threading.Event()
    stop.set()
    reader = TaskReader(s)
    assert reader.warm(stop) is False
    assert reader.open_tasks() == TaskReader(s).open_tasks()  # the list itself is whole


async def test_a_slow_first_read_is_an_answer_in_time_and_carries_on(
    s: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`commonplace chat` and `commonplace mcp` read the vault's to-dos themselves: on a big
    vault the first read takes longer than a tool may. list_tasks says so in time (the read
    goes on meanwhile) instead of passing the assistant's tool timeout; the next call, once the
    read is done, has the whole list without reading a note again."""
    import threading
    import time

    from commonplace.assistant import tasks as tasks_module
    from commonplace.assistant.registry import ToolContext
    from commonplace.assistant.tasks import TasksNotReady, task_tools

    expected = TaskReader(s).open_tasks()
    real = tasks_module.read_note
    reads: list[str] = []
    slow = threading.Event()
    slow.set()

    def slowly(vault: Path, path: str, *args: object) -> object:
        reads.append(path)
        if slow.is_set():
            time.sleep(0.2)  # a big vault's notes, each a little
        return real(vault, path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(tasks_module, "read_note", slowly)
    monkeypatch.setattr(tasks_module, "LIST_WAIT_S", 0.3)
    reader = TaskReader(s)
    [list_tasks] = [t for t in task_tools(s, reader) if t.name == "list_tasks"]
    started = time.perf_counter()
    with pytest.raises(ToolError, match=r"still being read for the first time \(\d+ notes"):
        await list_tasks.run(ToolContext(s, NOW), {"due_within_days": None, "words": ""})
    assert time.perf_counter() - started < 1.5  # not the whole read (0.2 s a note)
    with pytest.raises(TasksNotReady):  # the same read, not a second one
        reader.open_tasks_within(0.05)
    slow.clear()
    assert reader.open_tasks_within(10) == expected
    assert len(reads) == len(set(reads))  # each note read once, by the one read
    answer = await list_tasks.run(ToolContext(s, NOW), {"due_within_days": None, "words": ""})
    assert isinstance(answer, str) and expected[0].text in answer
    assert len(reads) == len(set(reads))


def test_logseq_ask_pages_and_digests_are_not_the_owners_tasks(settings: Settings) -> None:
    """In Logseq the Ask page Ask/Trip is pages/Ask___Trip.md, beside the owner's pages: an
    Ask note all the same, whose to-dos only repeat the owner's."""
    s = dataclasses.replace(settings, flavor="logseq")
    write(s.vault, "pages/Tasks.md", "- TODO Book the ferry\n")
    write(s.vault, "pages/Ask___Trip.md", "- ?? what is left to do\n  - TODO Pack the tent\n")
    write(s.vault, "pages/ask%2FOld.md", "- TODO Old format page\n")
    write(s.vault, "pages/Digests/2026-W43.md", "- TODO Book the ferry\n")
    write(s.vault, "pages/Asking around.md", "- TODO Ask Dave about the van\n")
    texts = [t.text for t in TaskReader(s).open_tasks() if t.path.startswith("pages/")]
    assert sorted(texts) == ["Ask Dave about the van", "Book the ferry"]


async def test_logseq_tasks_become_done(settings: Settings) -> None:
    s = dataclasses.replace(settings, flavor="logseq")
    write(
        s.vault,
        "pages/Tasks.md",
        "- TODO Order timber\n  DEADLINE: <2026-10-23 Fri>\n- LATER Paint\n",
    )
    action = CompleteTask(s)
    seen = await action.describe({"path": "pages/Tasks.md", "line": 0}, NOW)
    assert seen.question == 'Tick off "Order timber (due Friday 23 October)"?'
    await action.run({"path": "pages/Tasks.md", "line": 0}, seen, NOW)
    assert (s.vault / "pages/Tasks.md").read_text().startswith("- DONE Order timber\n")


# A journal page as Logseq writes one: every marker Logseq has (frontend/util/marker.cljs, and
# the docs graph's Tasks page: "CANCELED/CANCELLED, IN-PROGRESS, and WAIT/WAITING markers which
# can be typed directly"), a heading task, dates under properties, a repeater, a LOGBOOK.
LOGSEQ_JOURNAL = """\
- IN-PROGRESS the fun thing
- WAIT the slow thing
  id:: 6750a1b2-0000-4000-8000-000000000001
- ## TODO Plan the trip
  SCHEDULED: <2026-10-27 Tue>
  DEADLINE: <2026-10-29 Thu>
  collapsed:: true
	- child block
- NOW Water the plants
  SCHEDULED: <2026-10-26 Mon 07:00 .+1d>
  :LOGBOOK:
  CLOCK: [2026-10-25 Sun 07:00:00]
  :END:
- CANCELLED the boring thing
"""


async def test_every_logseq_marker_is_a_task_and_only_its_marker_changes(
    settings: Settings,
) -> None:
    """IN-PROGRESS and WAIT tasks were not listed at all, a heading task (`- ## TODO`) neither,
    and a DEADLINE under a SCHEDULED line was not its due date."""
    s = dataclasses.replace(settings, flavor="logseq")
    write(s.vault, "journals/2026_10_26.md", LOGSEQ_JOURNAL)
    tasks = {t.text: t for t in TaskReader(s).open_tasks() if t.path.startswith("journals/")}
    assert sorted(tasks) == ["Plan the trip", "Water the plants", "the fun thing", "the slow thing"]
    assert tasks["Plan the trip"].due == date(2026, 10, 29)  # the DEADLINE, not SCHEDULED
    assert tasks["Plan the trip"].title == "Oct 26th, 2026"
    action = CompleteTask(s)
    for words in ("the fun thing", "the slow thing", "Plan the trip"):
        task = tasks[words]
        params = {"path": task.path, "line": task.line, "text": task.text}
        seen = await action.describe(params, NOW)
        await action.run(params, seen, NOW)
    after = (s.vault / "journals/2026_10_26.md").read_text()
    assert after == (
        LOGSEQ_JOURNAL.replace("IN-PROGRESS the fun", "DONE the fun")
        .replace("WAIT the slow", "DONE the slow")
        .replace("## TODO Plan", "## DONE Plan")
    )


async def test_a_repeating_logseq_task_is_not_ended_by_a_tick(settings: Settings) -> None:
    """Ticked in Logseq, a task with a repeater (`.+1d`) moves to its next date and stays open;
    marked DONE here, the daily task would have stopped repeating. It is left as it is, and
    the owner is told why."""
    s = dataclasses.replace(settings, flavor="logseq")
    write(s.vault, "journals/2026_10_26.md", LOGSEQ_JOURNAL)
    task = next(t for t in TaskReader(s).open_tasks() if t.text == "Water the plants")
    params = {"path": task.path, "line": task.line, "text": task.text}
    with pytest.raises(Stale, match=r"repeats \(\.\+1d\): tick it off in Logseq"):
        await CompleteTask(s).describe(params, NOW)
    assert (s.vault / "journals/2026_10_26.md").read_text() == LOGSEQ_JOURNAL


async def test_a_running_logseq_clock_is_stopped_as_logseq_stops_it(settings: Settings) -> None:
    """A DOING task carries the clock Logseq started (time tracking is on by default). Ticked
    in Logseq it becomes DONE and the clock is closed with its span; the assistant left it
    running, so Logseq showed no time for the finished task."""
    s = dataclasses.replace(settings, flavor="logseq")
    text = (
        "- DOING Sand the shed door\n  :LOGBOOK:\n"
        "  CLOCK: [2026-10-25 Sun 07:00:00]--[2026-10-25 Sun 07:10:00] =>  00:10:00\n"
        "  CLOCK: [2026-10-26 Mon 08:15:30]\n  :END:\n\t- a child with its own\n"
        "- NOW Oil the hinges\n  :LOGBOOK:\n  CLOCK: [2026-10-26 Mon 08:00]\n  :END:\n"
    )
    write(s.vault, "pages/Shed.md", text)
    action = CompleteTask(s)
    for line in (0, 6):
        params = {"path": "pages/Shed.md", "line": line}
        await action.run(params, await action.describe(params, NOW), NOW)
    assert (s.vault / "pages/Shed.md").read_text() == text.replace(
        "- DOING Sand", "- DONE Sand"
    ).replace(
        "  CLOCK: [2026-10-26 Mon 08:15:30]\n",
        "  CLOCK: [2026-10-26 Mon 08:15:30]--[2026-10-26 Mon 09:00:00] =>  00:44:30\n",
    ).replace("- NOW Oil", "- DONE Oil")  # a clock without seconds is not Logseq's: left

    # With time tracking off in config.edn, only the marker changes.
    write(s.vault, "logseq/config.edn", "{:feature/enable-timetracking? false}\n")
    write(s.vault, "pages/Shed.md", text)
    params = {"path": "pages/Shed.md", "line": 0}
    await action.run(params, await action.describe(params, NOW), NOW)
    assert (s.vault / "pages/Shed.md").read_text() == text.replace("- DOING Sand", "- DONE Sand")


async def test_a_run_refuses_a_file_changed_after_the_recheck(s: Settings) -> None:
    action = CompleteTask(s)
    params = {"path": "Tasks.md", "line": 2}
    seen = await action.describe(params, NOW)
    write(s.vault, "Tasks.md", TASKS + "- [ ] typed in Obsidian just now\n")
    with pytest.raises(Stale, match="changed just now"):
        await action.run(params, seen, NOW)
    assert "[x]" not in (s.vault / "Tasks.md").read_text().splitlines()[2]


async def test_adding_a_task_creates_the_note_on_the_first_yes(s: Settings) -> None:
    (s.vault / "Tasks.md").unlink()
    action = AddTask(s)
    params = {"text": "Buy nails", "due": "2026-10-30"}
    seen = await action.describe(params, NOW)
    assert seen.question == 'Add the task "Buy nails (due Friday 30 October)" to Tasks.md?'
    proposal = Proposal("2026-10-26-ab", "add_task", params, seen.question, "2026-10-26")
    assert await confirm({"add_task": action}, proposal, NOW) == (
        'Added "Buy nails (due Friday 30 October)" to Tasks.md.'
    )
    assert (s.vault / "Tasks.md").read_text() == "- [ ] Buy nails (due 2026-10-30)\n"
    with pytest.raises(Refused, match="already an open task"):  # a retried Yes adds nothing
        await confirm({"add_task": action}, proposal, NOW)
    assert (s.vault / "Tasks.md").read_text() == "- [ ] Buy nails (due 2026-10-30)\n"


async def test_memory_lines_go_into_the_instructions_and_change_only_after_yes(s: Settings) -> None:
    snap = read_snapshot(s.vault, "Memory.md")
    assert memory_for_instructions(snap) == "- Sam is my brother.\n- I prefer meetings after 10:00."
    add, remove = AddMemory(s), RemoveMemory(s)
    seen = await add.describe({"text": "Sam is allergic to peanuts"}, NOW)
    assert seen.question == 'Add to your memory note: "Sam is allergic to peanuts"?'
    assert (s.vault / "Memory.md").read_text() == MEMORY
    await add.run({"text": "Sam is allergic to peanuts"}, seen, NOW)
    assert (s.vault / "Memory.md").read_text() == MEMORY + "- Sam is allergic to peanuts\n"
    seen = await remove.describe({"line": 5}, NOW)
    assert seen.question == 'Remove from your memory note: "Sam is my brother."?'
    await remove.run({"line": 5}, seen, NOW)
    assert "Sam is my brother" not in (s.vault / "Memory.md").read_text()
    assert "I prefer meetings after 10:00." in (s.vault / "Memory.md").read_text()


def test_close_matches_win_over_loose_ones(s: Settings) -> None:
    tasks = TaskReader(s).open_tasks()
    # "Renew passport — see [[Passport]]" matches only loosely ("renewal" starts with "renew").
    found = find_task(tasks, "passport renewal", TODAY)
    assert found.text == "Apply for passport renewal online"
    assert find_task(tasks, "renewing the passport", TODAY).text.startswith("Renew passport")


@pytest.mark.parametrize(
    ("flavor", "todo_format", "path", "written"),
    [
        ("obsidian", "tasks", "Tasks.md", "- [ ] Buy nails 📅 2026-10-30\n"),
        ("obsidian", "dataview", "Tasks.md", "- [ ] Buy nails [due:: 2026-10-30]\n"),
        ("logseq", "plain", "pages/Tasks.md", "- LATER Buy nails\n  DEADLINE: <2026-10-30 Fri>\n"),
    ],
)
async def test_an_added_task_is_written_as_the_vault_writes_to_dos(
    settings: Settings, flavor: str, todo_format: str, path: str, written: str
) -> None:
    s = dataclasses.replace(
        settings, flavor=flavor, tidy=dataclasses.replace(settings.tidy, todo_format=todo_format)
    )
    action = AddTask(s)
    params = {"text": "Buy nails", "due": "2026-10-30"}
    await action.run(params, await action.describe(params, NOW), NOW)
    assert (s.vault / path).read_text() == written
    [task] = [t for t in TaskReader(s).open_tasks() if t.path == path]
    assert (task.text, task.due) == ("Buy nails", date(2026, 10, 30))  # read back the same


async def test_an_added_logseq_task_follows_the_graphs_workflow(settings: Settings) -> None:
    """Logseq gives a new task the marker of its workflow: LATER by default
    (`:preferred-workflow :now`), TODO with `:preferred-workflow :todo`. Every added task read
    TODO in a graph whose own tasks read LATER."""
    s = dataclasses.replace(settings, flavor="logseq")
    write(s.vault, "logseq/config.edn", "{:preferred-workflow :todo}\n")
    action = AddTask(s)
    params = {"text": "Buy nails"}
    await action.run(params, await action.describe(params, NOW), NOW)
    assert (s.vault / "pages/Tasks.md").read_text() == "- TODO Buy nails\n"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("- [ ] Buy nails", "Buy nails"),
        ("*Urgent*: call the bank", "*Urgent*: call the bank"),
        ("-5 kg by June", "-5 kg by June"),
        ("+1 Maya on the proposal", "+1 Maya on the proposal"),
        ("TODO list for the move", "TODO list for the move"),
        ("Pay rent (due 2027-06-01)", "Pay rent"),
        ("Renew passport 📅 2019-01-01", "Renew passport"),
    ],
)
def test_task_words_are_kept_and_cannot_carry_their_own_due_date(typed: str, kept: str) -> None:
    from commonplace.assistant.tasks import clean_task_text

    assert clean_task_text(typed) == kept


async def test_the_same_task_twice_in_one_note_is_ticked_off_once_not_asked_about_forever(
    s: Settings,
) -> None:
    """ "Several tasks match: "Water the plants"; "Water the plants". Call again with more
    words" asked for what no words can give: the owner could never tick either off."""
    write(s.vault, "Tasks.md", TASKS + "- [ ] Water the plants\n- [ ] Water the plants\n")
    first = len(TASKS.splitlines())
    task = find_task(TaskReader(s).open_tasks(), "water the plants", TODAY)
    assert (task.path, task.line) == ("Tasks.md", first)
    action = CompleteTask(s)
    params = {"path": task.path, "line": task.line}
    seen = await action.describe(params, NOW)
    proposal = Proposal("2026-10-26-ab", "complete_task", params, seen.question, "2026-10-26")
    assert await confirm({action.kind: action}, proposal, NOW) == 'Ticked off "Water the plants".'
    lines = (s.vault / "Tasks.md").read_text().splitlines()
    assert lines[first:] == ["- [x] Water the plants", "- [ ] Water the plants"]
    write(s.vault, "Other.md", "- [ ] Water the plants\n")  # in two notes: the note decides
    with pytest.raises(ToolError, match="several open tasks match"):
        find_task(TaskReader(s).open_tasks(), "water the plants", TODAY)


def test_a_memory_line_inside_a_longer_one_or_written_twice_can_be_forgotten(
    s: Settings,
) -> None:
    """ "Zoë is vegan" next to "Zoë is vegan now", or a line written twice: "several lines
    match, call again with more words" asked for what no words could give."""
    write(s.vault, "Memory.md", "- Zoë is vegan now\n- Zoë is vegan\n- Sam\n- Sam\n")
    lines = memory_lines(read_snapshot(s.vault, "Memory.md"))
    assert (find_line(lines, "Zoë is vegan").line, find_line(lines, "Zoë is vegan").text) == (
        1,
        "Zoë is vegan",
    )
    assert find_line(lines, "vegan now").line == 0
    assert find_line(lines, "Sam").line == 2
    with pytest.raises(ToolError, match="several lines match 'zoë'"):
        find_line(lines, "zoë")


async def test_the_same_task_in_two_notes_is_told_apart_by_its_note_and_the_question_names_it(
    s: Settings,
) -> None:
    """The same open to-do in the tasks note and in another note: "several open tasks match:
    "Water the plants"; "Water the plants". Call again with more words" asked for what no words
    could give, so neither could be ticked off. The model is now told which notes, names one
    with 'note', and the question names that note (also the tasks note) so the owner knows
    which box a Yes ticks."""
    write(s.vault, "Tasks.md", TASKS + "- [ ] Water the plants\n")
    write(s.vault, "Areas/Garden.md", "# Garden\n\n- [ ] Water the plants\n")
    write(s.vault, "Journal/2026-11-30.md", "- [ ] Water the plants (due 2026-12-03)\n")
    tasks = TaskReader(s).open_tasks()
    with pytest.raises(ToolError) as three:  # a due date is no words to tell them apart by
        find_task(tasks, "water the plants", TODAY)
    assert '"Water the plants (due Thursday 3 December)" in the note "2026-11-30"' in str(
        three.value
    )
    assert "with the same words in different notes" in str(three.value)
    (s.vault / "Journal/2026-11-30.md").unlink()
    tasks = TaskReader(s).open_tasks()
    with pytest.raises(ToolError) as several:
        find_task(tasks, "water the plants", TODAY)
    assert '"Water the plants" in the note "Tasks"' in str(several.value)
    assert '"Water the plants" in the note "Garden"' in str(several.value)
    assert "call again with 'note'" in str(several.value)
    assert find_task(tasks, "water the plants", TODAY, note="Garden").path == "Areas/Garden.md"
    assert find_task(tasks, "water the plants", TODAY, note="Areas/Garden.md").line == 2
    assert find_task(tasks, "water the plants", TODAY, note="tasks.md").path == "Tasks.md"
    with pytest.raises(ToolError, match="no note 'Kitchen' has open tasks"):
        find_task(tasks, "water the plants", TODAY, note="Kitchen")

    from commonplace.assistant.registry import ToolContext
    from commonplace.assistant.tasks import task_tools

    complete = next(t for t in task_tools(s, TaskReader(s)) if t.name == "complete_task")
    ctx = ToolContext(s, NOW)
    proposed = await complete.run(ctx, {"task": "water the plants", "note": "Tasks"})
    assert not isinstance(proposed, str)
    action = CompleteTask(s)
    seen = await action.describe(proposed.params, NOW)
    assert seen.question == 'Tick off "Water the plants" in the note "Tasks"?'
    proposal = Proposal("2026-10-26-ab", "complete_task", proposed.params, seen.question, "x")
    assert await confirm({action.kind: action}, proposal, NOW) == (
        'Ticked off "Water the plants" in the note "Tasks".'
    )
    assert (s.vault / "Tasks.md").read_text().endswith("- [x] Water the plants\n")
    assert (s.vault / "Areas/Garden.md").read_text().endswith("- [ ] Water the plants\n")
    only = await complete.run(ctx, {"task": "order timber", "note": ""})
    assert not isinstance(only, str)
    plain = await action.describe(only.params, NOW)
    assert plain.question == 'Tick off "Order timber for the shed roof (due Friday 23 October)"?'
