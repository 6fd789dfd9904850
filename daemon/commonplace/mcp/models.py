"""What each MCP tool hands back: typed, so a client gets a schema and the model plain JSON."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SearchHit(BaseModel):
    path: str = Field(description="the note's path in the vault; give it to read_note")
    title: str
    heading: str = Field(description="the section the passage is under ('' for the top)")
    snippet: str = Field(description="the start of the matching passage")
    note_date: str = Field(description="the note's date, YYYY-MM-DD")
    page: int | None = Field(
        default=None, description="for a PDF in the vault: the page the passage is on"
    )
    label: str = Field(default="", description="how to name the source: 'Manual.pdf, page 4'")


class SearchAnswer(BaseModel):
    results: list[SearchHit]
    mode: str = Field(description="the search actually used: hybrid, vector or keyword")
    notice: str | None = Field(description="why the search was partial, if it was")


class Source(BaseModel):
    n: int = Field(description="the number the answer cites as [n]")
    path: str
    title: str
    heading: str
    text: str = Field(description="the cited passage, shortened")
    note_date: str
    page: int | None = Field(default=None, description="for a PDF: the cited passage's page")
    label: str = Field(default="", description="how to name the source: 'Manual.pdf, page 4'")


class AskAnswer(BaseModel):
    answer: str
    refused: bool = Field(description="true when the notes do not hold the answer")
    sources: list[Source]
    findings: list[str] = Field(description="the program's checks of the answer, one per line")


class NoteText(BaseModel):
    path: str
    title: str
    text: str
    chars: int = Field(description="the note's whole length in characters")
    truncated: bool = Field(description="true when only the first part of the note is given")


class TaskItem(BaseModel):
    text: str
    due: str | None = Field(description="YYYY-MM-DD, or null for no due date")
    due_day: str | None = Field(description="the due date with its weekday, e.g. Friday 23 October")
    overdue: bool
    path: str = Field(description="the note the to-do is in")
    note: str = Field(description="that note's title as the owner's editor shows it")


class TaskList(BaseModel):
    today: str = Field(description="today in the owner's time zone, YYYY-MM-DD")
    tasks: list[TaskItem]
    more: int = Field(description="open tasks left out to keep the list short")


class Captured(BaseModel):
    path: str = Field(description="the new capture in the inbox")
    message: str


class Asked(BaseModel):
    changed: bool = Field(description="always false: nothing changes until the owner says Yes")
    question: str = Field(description="the question the owner sees, written by Commonplace")
    already_waiting: bool = Field(description="the same question was already waiting")
    message: str
