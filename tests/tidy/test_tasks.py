"""To-dos only where the owner wrote a task of their own (tidy/tasks.py): a table of the
to-dos a small model proposed for the fixture week, and of tasks written other ways."""

from __future__ import annotations

import pytest

from commonplace.tidy.tasks import reads_as_task, task_problem
from tests.tidy.conftest import body_of


@pytest.mark.parametrize(
    ("capture", "todo"),
    [
        ("2026-10-20 0805.md", "Order timber for the shed roof from Jewson"),
        ("2026-10-20 0805.md", "Ring Mum about Christmas"),
        ("2026-10-20 1248.md", "Send Zoë the annotated checkout flows"),  # she needs ... by friday
        ("2026-10-21 1120.md", "Send research slides to Maya by 10am tomorrow"),
        ("2026-10-21 1120.md", "Send Maya the 5 research slides"),  # "send them to her"
        ("2026-10-22 0730.md", "Learn the Caro-Kann advance variation"),
        ("2026-10-22 1405.md", "Book the dentist"),
        ("2026-10-23 0840.md", "Update the payment screen with the fraud check copy"),
        ("2026-10-23 1712.md", "Order the Zombie record from Discogs"),
        ("2026-10-24 1430.md", "Clear the junk out of the shed"),
        ("2026-10-24 1430.md", "Take the old mower to the tip"),
        ("2026-10-25 1105.md", "Plant the tulips"),
    ],
)
def test_the_owners_tasks_are_kept(capture: str, todo: str) -> None:
    assert task_problem(todo, body_of(capture), "phone") is None


@pytest.mark.parametrize(
    ("capture", "todo"),
    [
        ("2026-10-19 0742.md", "Chess moves to Wednesdays 8pm"),
        ("2026-10-19 1315.md", "Show the next 7 days of prices like a weather forecast strip"),
        ("2026-10-20 1248.md", "Shes off 2-6 nov, visiting her family in Valencia"),
        ("2026-10-20 1251.md", "Launch the Nettle Pay Cert"),
        ("2026-10-20 1251.md", "Rubber stamp the steering at 2"),
        ("2026-10-21 0915.md", "Reschedule appointment to Friday 30th at 9 AM, Gloucester Road"),
        ("2026-10-22 1405.md", "Horfield dental, fri 8.30s are easiest"),
        ("2026-10-24 1430.md", "Jewson delivery of roof timber and EPDM thurs 29th"),
        ("2026-10-25 1105.md", "Plant the garlic, 18 cloves in bed 3"),
        ("2026-10-25 1920.md", "Send an envelope for the old passport"),
    ],
)
def test_what_the_owner_only_states_is_no_task(capture: str, todo: str) -> None:
    assert task_problem(todo, body_of(capture), "phone") is not None


def test_words_shared_from_another_app_give_no_task() -> None:
    """The newsletter clipping says 'Plant cloves pointy end up': someone else's orders."""
    words = body_of("2026-10-21 2237.md")
    assert task_problem("Plant garlic cloves 15cm apart", words, "share") is not None
    assert task_problem("Buy milk", "buy milk", "shortcut") is not None


@pytest.mark.parametrize(
    ("sentence", "task"),
    [
        ("need to renew the car insurance", True),
        ("remind me to call the bank", True),
        ("todo: fix the gate", True),
        ("don't forget the bins", True),
        ("passport photo by the 30th", True),  # a deadline
        ("ok so email Priya about the beta", True),  # a clause opening with a verb
        ("dinner was lovely; then book the table again for june", True),
        ("the car failed its MOT", False),
        ("launch moved to 26 nov", False),
        ("sam is booking the table", False),
        ("could work in onboarding too??", False),
    ],
)
def test_reads_as_task(sentence: str, task: bool) -> None:
    assert reads_as_task(sentence) is task
