"""The whisper.cpp boundary: a missing model is a clear message and never a download."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from commonplace.config import SpeechSettings
from commonplace.speech import SpeechUnavailable, WhisperTranscriber, model_path


def test_no_model_configured_says_what_to_download() -> None:
    with pytest.raises(SpeechUnavailable) as caught:
        model_path(SpeechSettings())
    message = str(caught.value)
    assert "ggml-base.en.bin" in message and "whisper_model" in message


def test_missing_model_file(tmp_path: Path) -> None:
    with pytest.raises(SpeechUnavailable, match="does not exist"):
        model_path(SpeechSettings(whisper_model=str(tmp_path / "ggml-base.en.bin")))


def test_transcriber_without_model_fails_before_loading_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pywhispercpp downloads a model given a bare name like 'base.en'; we must never get there."""
    import pywhispercpp.model

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("the model must not be loaded")

    monkeypatch.setattr(pywhispercpp.model, "Model", no_load)
    transcriber = WhisperTranscriber(SpeechSettings(whisper_model="base.en"))
    with pytest.raises(SpeechUnavailable):
        transcriber(np.zeros(16_000, dtype=np.float32), "Names: Maya.")


def test_transcriber_passes_audio_and_hint_to_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real class with pywhispercpp's Model replaced: what reaches whisper.cpp."""
    model_file = tmp_path / "ggml-tiny.bin"
    model_file.write_bytes(b"not really a model")
    seen: dict[str, object] = {}

    class Segment:
        def __init__(self, text: str) -> None:
            self.text = text

    class FakeModel:
        def __init__(self, path: str, **params: object) -> None:
            seen["path"], seen["init"] = path, params

        def transcribe(self, audio: np.ndarray, **params: object) -> list[Segment]:
            seen["audio"], seen["params"] = audio, params
            return [Segment(" Ring Maya "), Segment(""), Segment("about the shed.")]

    import pywhispercpp.model

    monkeypatch.setattr(pywhispercpp.model, "Model", FakeModel)
    transcriber = WhisperTranscriber(SpeechSettings(whisper_model=str(model_file), threads=2))
    audio = np.zeros(16_000, dtype=np.float32)
    assert transcriber(audio, "Names: Maya Collins.") == "Ring Maya about the shed."
    assert seen["path"] == str(model_file)
    assert seen["init"] == {
        "n_threads": 2,
        "print_progress": False,
        "print_realtime": False,
        "redirect_whispercpp_logs_to": None,
    }
    assert seen["params"] == {"initial_prompt": "Names: Maya Collins.", "language": "en"}
    assert seen["audio"] is audio
    # No hint is an empty string, never None (pywhispercpp refuses None) and never left out
    # (pywhispercpp keeps a parameter from one call to the next: the last hint would stay).
    transcriber(audio, "")
    assert seen["params"] == {"initial_prompt": "", "language": "en"}
