"""Ask: answers from the notes with numbered citations, checked by the program.

May import: attachments, basics, config, llm, prompts, runtime, vault.
"""

from commonplace.ask.answer import AskError, answer_question, stream_answer
from commonplace.ask.models import REFUSAL, Answer, Passage, Source

__all__ = [
    "REFUSAL",
    "Answer",
    "AskError",
    "Passage",
    "Source",
    "answer_question",
    "stream_answer",
]
