"""Decoding what phones record into 16 kHz mono float32, with the duration limit."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from commonplace.speech import SAMPLE_RATE, AudioError, AudioTooLong, decode_audio, duration_s
from tests.speech.audio_maker import encode, peak_frequency, recording, tone


@pytest.mark.parametrize(
    ("kind", "rate"), [("webm", 48_000), ("webm", 24_000), ("mp4", 48_000), ("mp4", 44_100)]
)
def test_phone_recordings_become_16k_mono(kind: str, rate: int) -> None:
    audio = decode_audio(recording(kind, seconds=2.0, rate=rate), max_seconds=60)
    assert audio.dtype == np.float32 and audio.ndim == 1
    # AAC adds encoder priming samples; opus is exact. Both within 50 ms of 2 s.
    assert duration_s(audio) == pytest.approx(2.0, abs=0.05)
    assert abs(peak_frequency(audio, SAMPLE_RATE) - 440.0) < 5
    assert 0.2 < float(np.abs(audio).max()) <= 1.0


def test_mono_recording() -> None:
    data = encode(tone(1.0, 48_000, freq=1000.0), 48_000, "webm", stereo=False)
    audio = decode_audio(data, max_seconds=60)
    assert duration_s(audio) == pytest.approx(1.0, abs=0.05)
    assert abs(peak_frequency(audio, SAMPLE_RATE) - 1000.0) < 5


@pytest.mark.parametrize("kind", ["webm", "mp4"])
def test_too_long_is_refused(kind: str) -> None:
    with pytest.raises(AudioTooLong, match="longer than the 1 s limit"):
        decode_audio(recording(kind, seconds=2.5), max_seconds=1)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"this is not audio at all" * 100, "could not be read"),
        (b"\x1a\x45\xdf\xa3" + b"\x00" * 64, "could not be read"),  # a webm header and nothing
    ],
)
def test_not_audio_is_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(AudioError, match=message):
        decode_audio(data, max_seconds=60)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_spoken_words_survive(tmp_path: Path) -> None:
    """Real speech (espeak-ng, 22.05 kHz) through mp4/aac: the length matches what was said."""
    wav = tmp_path / "speech.wav"
    subprocess.run(
        ["espeak-ng", "-w", str(wav), "Ring Maya Collins about the shed roof"], check=True
    )
    import av

    with av.open(str(wav)) as container:
        stream = container.streams.audio[0]
        rate = stream.rate
        samples = np.concatenate(
            [f.to_ndarray().astype(np.float32).reshape(-1) for f in container.decode(stream)]
        )
    if samples.dtype != np.float32 or np.abs(samples).max() > 1.5:
        samples = (samples / 32768.0).astype(np.float32)
    audio = decode_audio(encode(samples, rate, "mp4", stereo=False), max_seconds=60)
    assert duration_s(audio) == pytest.approx(len(samples) / rate, abs=0.08)
    assert float(np.sqrt(np.mean(audio**2))) > 0.01  # not silence
