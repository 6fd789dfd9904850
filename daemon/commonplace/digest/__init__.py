"""The weekly Digest note: lists written by code, a few sentences by the model.

May import: basics, capture, config, llm, prompts, push, runtime, vault.
"""

from commonplace.digest.collect import collect
from commonplace.digest.models import DigestData, FiledCapture, OpenTodo, TodoLists
from commonplace.digest.render import notification_text, render_digest
from commonplace.digest.service import DigestOutcome, digest_job, make_digest, scheduled_digest
from commonplace.digest.summary import Summary, summary_messages, write_summary
from commonplace.digest.week import Week, digest_week, parse_week, week_of

__all__ = [
    "DigestData",
    "DigestOutcome",
    "FiledCapture",
    "OpenTodo",
    "Summary",
    "TodoLists",
    "Week",
    "collect",
    "digest_job",
    "digest_week",
    "make_digest",
    "notification_text",
    "parse_week",
    "render_digest",
    "scheduled_digest",
    "summary_messages",
    "week_of",
    "write_summary",
]
