"""The sections for the stages: the vault's folders, clipping, dictation, search, attachments,
Ask, tidying, the lease, the digest, the assistant and the briefing. Every key says what it
does in `metadata["doc"]`, which the reference is generated from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from commonplace.config.values import ConfigError, bounds, one_of


@dataclass(frozen=True)
class Folders:
    """Vault folder names; relative to the vault root."""

    inbox: str = field(
        default="Inbox", metadata={"doc": "Where captures land; everything saved here is filed."}
    )
    filed: str = field(default="Filed", metadata={"doc": "Where tidying writes filed notes."})
    ask: str = field(
        default="Ask", metadata={"doc": "Notes here are read for `?? ` questions to answer."}
    )
    digests: str = field(default="Digests", metadata={"doc": "Where the weekly digest goes."})


@dataclass(frozen=True)
class ClipSettings:
    """A shared link's page (capture/clipping.py, capture/pagefetch.py): fetched only when asked,
    and guarded."""

    fetch_pages: bool = field(
        default=False,
        metadata={
            "doc": "Save the text of every linked page shared as a capture (a fetch tells the "
            "site your address and when you read it; the page's toggle asks for one capture)."
        },
    )
    max_page_kb: int = field(
        default=2048,
        metadata={
            **bounds(16, 65536),
            "doc": "The largest web page fetched for its text, in KB.",
        },
    )
    timeout_s: float = field(
        default=10.0,
        metadata={
            **bounds(1, 120),
            "doc": "Seconds a page fetch may take before it is given up.",
        },
    )
    max_share_mb: float = field(
        default=25.0,
        metadata={
            **bounds(0.1, 500),
            "doc": "The largest total size of the files (photos, PDFs) in one share, in MB.",
        },
    )


@dataclass(frozen=True)
class SpeechSettings:
    """Dictation: whisper.cpp on this computer, never a cloud service."""

    whisper_model: str = field(
        default="",
        metadata={
            "doc": "Path of a whisper.cpp ggml model file, e.g. ~/models/ggml-base.en.bin; "
            "empty: no dictation."
        },
    )
    language: str = field(
        default="en", metadata={"doc": "The whisper language code of recordings, or 'auto'."}
    )
    threads: int = field(
        default=4, metadata={**bounds(1, 64), "doc": "Threads whisper.cpp transcribes with."}
    )
    max_upload_mb: float = field(
        default=20.0,
        metadata={**bounds(0.1, 500), "doc": "Largest recording upload, in MB (larger: 413)."},
    )
    max_seconds: float = field(
        default=300.0,
        metadata={
            **bounds(1, 3600),
            "doc": "Longest recording, in seconds; the page stops recording at this length.",
        },
    )
    hint_names: int = field(
        default=60,
        metadata={
            **bounds(0, 500),
            "doc": "Names of people and places from the vault in the dictation hint.",
        },
    )


@dataclass(frozen=True)
class IndexSettings:
    """The hybrid search index (index/): how it ranks, cuts notes and keeps up with the vault."""

    fusion: str = field(
        default="convex",
        metadata={
            **one_of("convex", "rrf"),
            "doc": "How the meaning and keyword rankings are combined: 'convex' (scores scaled "
            "and averaged) or 'rrf' (reciprocal rank fusion).",
        },
    )
    rrf_k: int = field(
        default=60,
        metadata={
            **bounds(1, 10000),
            "doc": "The reciprocal rank fusion constant (fusion='rrf').",
        },
    )
    keyword_candidates: int = field(
        default=20,
        metadata={
            **bounds(0, 1000),
            "doc": "Best whole-note keyword matches fused with the meaning ranking.",
        },
    )
    keyword_weight: float = field(
        default=1.0,
        metadata={
            **bounds(0, 10),
            "doc": "Weight of the keyword ranking in the fusion (the meaning ranking's is 1).",
        },
    )
    # Measured to help MiniLM and to hurt all-mpnet-base-v2 (eval_suite/README.md, M2), so it
    # can be measured on the owner's model.
    hubness: bool = field(
        default=True,
        metadata={
            "doc": "The meaning side's hubness correction (CSLS, index/hubness.py); false: "
            "plain cosine."
        },
    )
    chunk_tokens: int = field(
        default=400,
        metadata={
            **bounds(32, 8192),
            "doc": "Largest chunk, in (over-estimated) tokens; a model's own limit wins.",
        },
    )
    reconcile_minutes: float = field(
        default=10.0,
        metadata={
            **bounds(0.1, 1440),
            "doc": "How often the index is compared with the vault (the periodic scan).",
        },
    )
    max_note_kb: int = field(
        default=2048,
        metadata={
            **bounds(1, 1_000_000),
            "doc": "Larger note files are skipped (and the log says so).",
        },
    )
    embed_titles: bool = field(
        default=True, metadata={"doc": "Embed 'Title > Heading' with each chunk's text."}
    )
    compact_every: int = field(
        default=64,
        metadata={
            **bounds(1, 100_000),
            "doc": "LanceDB writes between compactions and clean-ups.",
        },
    )
    vector_index_rows: int = field(
        default=2000,
        metadata={
            **bounds(256, 100_000_000),
            "doc": "Chunks past which a LanceDB vector index (ANN) is built.",
        },
    )
    vector_process_idle_minutes: float = field(
        default=5.0,
        metadata={
            **bounds(0, 1440),
            "doc": "The daemon's LanceDB process stops after this long without a search or a "
            "write (about 200 MB given back); 0 keeps LanceDB in the daemon's process.",
        },
    )
    exclude: tuple[str, ...] = field(
        default=(),
        metadata={
            "doc": "Notes kept out of search, in Obsidian's 'Excluded files' syntax: a path "
            "prefix such as 'Templates/', or '/regex/'; Obsidian's and Logseq's own exclusions "
            "are followed too."
        },
    )


@dataclass(frozen=True)
class AttachmentSettings:
    """PDFs and images in the vault: read, cached by content, indexed page by page."""

    enabled: bool = field(
        default=True, metadata={"doc": "Read the vault's PDFs and images into the search index."}
    )
    ocr: bool = field(
        default=True,
        metadata={"doc": "Read images and pages without a text layer by OCR (needs Tesseract)."},
    )
    ocr_languages: tuple[str, ...] = field(
        default=("eng",),
        metadata={"doc": "Tesseract languages to read with, e.g. ['eng', 'deu']."},
    )
    ocr_below_chars: int = field(
        default=50,
        metadata={
            **bounds(0, 100_000),
            "doc": "A PDF page with fewer characters of text than this is read by OCR.",
        },
    )
    max_file_mb: float = field(
        default=200.0,
        metadata={**bounds(0.1, 100_000), "doc": "Larger attachments are not read."},
    )
    max_pages: int = field(
        default=2000,
        metadata={**bounds(1, 1_000_000), "doc": "Pages read from one PDF; the rest are not."},
    )
    max_seconds: float = field(
        default=300.0,
        metadata={
            **bounds(1, 86_400),
            "doc": "Time one file may take to read; the pages read by then are kept.",
        },
    )
    max_pixels: int = field(
        default=100_000_000,
        metadata={
            **bounds(1_000_000, 2_000_000_000),
            "doc": "Larger images are refused as decompression bombs; pages render below it.",
        },
    )
    max_memory_mb: int = field(
        default=2048,
        metadata={
            **bounds(0, 1_000_000),
            "doc": "Memory the reading process may use (0: no limit); a bomb stops there.",
        },
    )
    max_photo_mb: float = field(
        default=20.0,
        metadata={**bounds(0.1, 1000), "doc": "The largest photo the phone page takes."},
    )


@dataclass(frozen=True)
class AskSettings:
    """Answers from the notes (ask/): what the model is shown, and `?? ` questions in Ask notes."""

    passages: int = field(
        default=8, metadata={**bounds(1, 50), "doc": "Passages given to the model."}
    )
    passage_chars: int = field(
        default=600,
        metadata={
            **bounds(100, 20000),
            "doc": "Longest passage the model reads: a longer one keeps the lines the "
            "question names.",
        },
    )
    quiet_s: float = field(
        default=5.0,
        metadata={
            **bounds(0, 600),
            "doc": "An Ask note must be unchanged this long before it is answered.",
        },
    )
    max_inserts: int = field(
        default=3,
        metadata={
            **bounds(1, 100),
            "doc": "Times an answer is put back after it disappeared from its note.",
        },
    )
    source_chars: int = field(
        default=240,
        metadata={**bounds(40, 4000), "doc": "Length of the passage shown under an answer."},
    )
    retry_s: float = field(
        default=60.0,
        metadata={
            **bounds(1, 86400),
            "doc": "Wait before trying a question again after Ollama failed.",
        },
    )


@dataclass(frozen=True)
class TidySettings:
    """How captures in the inbox become filed notes (tidy/)."""

    after_filing: str = field(
        default="archive",
        metadata={
            **one_of("archive", "delete"),
            "doc": "'archive' keeps a copy of each filed capture in the data folder; 'delete' "
            "keeps none.",
        },
    )
    stable_s: float = field(
        default=2.0,
        metadata={**bounds(0, 600), "doc": "A capture is read once unchanged this long."},
    )
    max_attempts: int = field(
        default=3,
        metadata={
            **bounds(1, 100),
            "doc": "Unusable model answers in a row before a capture is marked.",
        },
    )
    retry_s: float = field(
        default=30.0,
        metadata={**bounds(0, 3600), "doc": "First wait after a failure; waits double."},
    )
    retry_max_s: float = field(
        default=900.0,
        metadata={**bounds(0, 86400), "doc": "The longest wait between tries."},
    )
    max_capture_kb: int = field(
        default=512,
        metadata={
            **bounds(1, 1_000_000),
            "doc": "A larger capture file stays in the inbox, untouched, shown with the reason.",
        },
    )
    marked_retry_s: float = field(
        default=3600.0,
        metadata={
            **bounds(1, 86400),
            "doc": "A marked capture is tried again after this, the wait doubling up to a day.",
        },
    )
    todo_format: str = field(
        default="plain",
        metadata={
            **one_of("plain", "tasks", "dataview"),
            "doc": "How a to-do's due date is written (Obsidian flavour): 'plain' (due "
            "2026-10-23), 'tasks' (the Tasks plugin's 📅 2026-10-23) or 'dataview' "
            "([due:: 2026-10-23]).",
        },
    )


@dataclass(frozen=True)
class LeaseSettings:
    """The vault lease (daemon/lease.py): which computer's daemon tidies and answers, when several
    computers sync one vault."""

    heartbeat_s: float = field(
        default=60.0,
        metadata={
            **bounds(0.1, 3600),
            "doc": "How often the daemon that holds the vault's lease renews it.",
        },
    )
    stale_s: float = field(
        default=600.0,
        metadata={
            **bounds(1, 86400),
            "doc": "A lease unchanged this long (by this computer's clock) is taken over; at "
            "least three heartbeats.",
        },
    )

    def __post_init__(self) -> None:
        if self.stale_s < 3 * self.heartbeat_s:
            raise ConfigError(
                f"lease.stale_s = {self.stale_s:g} must be at least three heartbeats "
                f"(3 x lease.heartbeat_s = {3 * self.heartbeat_s:g}), or a slow sync tool "
                "makes a working daemon look gone"
            )


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@dataclass(frozen=True)
class DigestSettings:
    """The weekly Digest note (digest/) and when the scheduler writes it."""

    enabled: bool = field(default=True, metadata={"doc": "false: the scheduler writes no digest."})
    day: str = field(
        default="sunday",
        metadata={
            **one_of(*WEEKDAYS),
            "any_case": True,
            "doc": "The day it is written ('Sunday' works too); it covers the last "
            "Monday-Sunday week whose Sunday has come.",
        },
    )
    time: str = field(default="18:00", metadata={"doc": "HH:MM in the configured timezone."})
    summary: bool = field(
        default=True,
        metadata={
            "doc": "Ask the model for a few sentences above the lists; false: no model call."
        },
    )

    def __post_init__(self) -> None:
        if not re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", self.time):
            raise ConfigError(f"digest.time = {self.time!r} is not a time; use HH:MM, e.g. '18:00'")


@dataclass(frozen=True)
class AssistantSettings:
    """The assistant on the phone page (assistant/): the vault notes its tools read and change."""

    tasks_note: str = field(
        default="Tasks.md",
        metadata={"doc": "Where the assistant adds tasks; created on the first Yes that adds one."},
    )
    memory_note: str = field(
        default="Memory.md",
        metadata={"doc": "Lines the assistant keeps in mind; edit it by hand any time."},
    )
    tool_calls: str = field(
        default="auto",
        metadata={
            **one_of("auto", "native", "schema"),
            "doc": "How the model asks for a tool: 'native' (the server's tool calls), "
            "'schema' (one JSON answer per step, held to a schema that lists the tools: for "
            "small models), or 'auto': 'schema' when the server refuses tools or the model "
            "was found to print its calls as text, else 'native'.",
        },
    )

    def __post_init__(self) -> None:
        for key in ("tasks_note", "memory_note"):
            value = getattr(self, key).strip()
            if not value or ".." in Path(value).parts or Path(value).is_absolute():
                raise ConfigError(
                    f"assistant.{key} = {value!r} must be a note's path inside the vault"
                )


@dataclass(frozen=True)
class BriefingSettings:
    """The morning briefing (briefing/): pushed once a day, and shown in the Assistant view."""

    enabled: bool = field(
        default=True,
        metadata={"doc": "Write the briefing and push it to the phones that turned it on."},
    )
    time: str = field(default="07:00", metadata={"doc": "HH:MM in the configured timezone."})

    def __post_init__(self) -> None:
        if not re.fullmatch(r"([01]?\d|2[0-3]):[0-5]\d", self.time):
            raise ConfigError(
                f"briefing.time = {self.time!r} is not a time; use HH:MM, e.g. '07:00'"
            )
