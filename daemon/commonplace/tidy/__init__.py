"""Tidy: captures in the inbox become filed notes. The model proposes; the program decides.

May import: attachments, basics, capture, config, llm, prompts, runtime, vault.
"""

from commonplace.tidy.models import Candidate, Decision, Dropped, Outcome, Proposal, Todo
from commonplace.tidy.pipeline import CaptureEdited, TidyContext, tidy_capture
from commonplace.tidy.service import TidyService

__all__ = [
    "Candidate",
    "CaptureEdited",
    "Decision",
    "Dropped",
    "Outcome",
    "Proposal",
    "TidyContext",
    "TidyService",
    "Todo",
    "tidy_capture",
]
