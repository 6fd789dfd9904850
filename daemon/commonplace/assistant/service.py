"""Putting the assistant together for the daemon, the CLI and the eval suite."""

from __future__ import annotations

from commonplace.assistant.calendar_tools import calendar_actions, calendar_tools
from commonplace.assistant.conversation import Conversations
from commonplace.assistant.engine import Assistant, Clock
from commonplace.assistant.memory import (
    AddMemory,
    RemoveMemory,
    memory_text,
    memory_tools,
)
from commonplace.assistant.registry import Registry
from commonplace.assistant.tasks import AddTask, CompleteTask, TaskReader, task_tools
from commonplace.assistant.vaultfiles import note_path
from commonplace.assistant.weather_tools import weather_tools
from commonplace.calendar import CalendarClient
from commonplace.config import Settings
from commonplace.llm import LLM


def build_registry(
    settings: Settings, calendar: CalendarClient | None = None, tasks: TaskReader | None = None
) -> Registry:
    """Every tool and action the assistant has. The calendar's tools are there also when no
    calendar is set up: they say so, and the model can tell the owner. `tasks`: the daemon's
    reader, which it reads ahead after start-up."""
    registry = Registry()
    registry.extend(
        task_tools(settings, tasks or TaskReader(settings)),
        [AddTask(settings), CompleteTask(settings)],
    )
    registry.extend(memory_tools(settings), [AddMemory(settings), RemoveMemory(settings)])
    calendar = calendar or CalendarClient(settings)
    registry.extend(calendar_tools(calendar), calendar_actions(calendar))
    registry.extend(weather_tools(settings))
    return registry


def build_assistant(
    settings: Settings,
    llm: LLM,
    *,
    clock: Clock | None = None,
    registry: Registry | None = None,
    in_memory: bool = False,
    calendar: CalendarClient | None = None,
    tasks: TaskReader | None = None,
) -> Assistant:
    """The assistant with its day logs in `<data folder>/assistant/` (or in memory, for evals)."""

    def memory() -> str:
        # looked for each time: the graph's pages directory may change while the daemon runs
        return memory_text(settings.vault, note_path(settings, settings.assistant.memory_note))

    folder = None if in_memory else settings.data_path / "assistant"
    return Assistant(
        settings,
        llm,
        registry or build_registry(settings, calendar, tasks),
        Conversations(folder),
        memory=memory,
        clock=clock,
    )
