"""The 07:00 morning briefing: today's events, tasks due and overdue, the weather.

May import: assistant, basics, calendar, config, push, runtime, weather.
"""

from commonplace.briefing.service import (
    briefing_job,
    briefing_message,
    kept_briefing,
    make_briefing,
    push_briefing,
    scheduled_briefing,
)
from commonplace.briefing.text import Briefing, briefing_text

__all__ = [
    "Briefing",
    "briefing_job",
    "briefing_message",
    "briefing_text",
    "kept_briefing",
    "make_briefing",
    "push_briefing",
    "scheduled_briefing",
]
