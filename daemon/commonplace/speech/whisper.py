"""Transcription with whisper.cpp (pywhispercpp), on this computer.

`Transcriber` is the function boundary the server calls: audio and a hint prompt in, text out.
Tests replace it; the real one loads the model file named in the settings once and keeps it.
pywhispercpp downloads a model when given a bare name, so only an existing file path is ever
passed to it: a missing model is a clear message, never a download.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from commonplace.config import SpeechSettings
from commonplace.speech.audio import Audio

log = logging.getLogger(__name__)

Transcriber = Callable[[Audio, str], str]

MODEL_HELP = (
    "Download a whisper.cpp model, for example ggml-base.en.bin (English, 142 MB) or "
    "ggml-small.bin (other languages) from the ggerganov/whisper.cpp models on Hugging Face, "
    "and set [speech] whisper_model = '/path/to/ggml-base.en.bin' in commonplace.toml"
)


class SpeechUnavailable(Exception):
    """Dictation cannot run on this computer as configured; the message says what to do."""


def model_path(settings: SpeechSettings) -> Path:
    """The configured model file, or SpeechUnavailable naming what to download."""
    if not settings.whisper_model.strip():
        raise SpeechUnavailable(f"dictation needs a whisper model and none is set. {MODEL_HELP}")
    path = Path(settings.whisper_model).expanduser()
    if not path.is_file():
        raise SpeechUnavailable(f"the whisper model {path} does not exist. {MODEL_HELP}")
    return path


class WhisperTranscriber:
    """Loads the model on first use (seconds, hundreds of MB) and serialises calls to it."""

    def __init__(self, settings: SpeechSettings) -> None:
        self.settings = settings
        self._model: Any = None
        self._lock = threading.Lock()

    def __call__(self, audio: Audio, prompt: str) -> str:
        with self._lock:
            model = self._load()
            # Always a string: pywhispercpp refuses None, and its parameters persist from one
            # call to the next, so leaving the prompt out would reuse the previous hint.
            params: dict[str, Any] = {"initial_prompt": prompt}
            language = self.settings.language.strip()
            params["language"] = "" if language == "auto" else language
            segments = model.transcribe(audio, **params)
        return " ".join(seg.text.strip() for seg in segments if seg.text.strip())

    def _load(self) -> Any:
        if self._model is None:
            path = model_path(self.settings)
            from pywhispercpp.model import Model  # imported late: loads a native library

            log.info("loading whisper model %s", path)
            self._model = Model(
                str(path),
                n_threads=self.settings.threads,
                print_progress=False,
                print_realtime=False,
                redirect_whispercpp_logs_to=None,
            )
        return self._model
