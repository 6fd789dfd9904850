"""Recordings for the dictation eval: words spoken by espeak-ng, encoded as phones send them.

A phone's page records with the browser's own format: webm/opus on Chrome and Android, mp4/aac
on Safari (README, Dictation), at 48 kHz. The eval makes the same two from a synthetic voice,
so the daemon's decoder (speech/audio.py) reads what it reads from a phone. espeak-ng is a
Debian package (`make browser` installs it); it is robotic, which makes this a hard test of the
model, not a flattering one.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
import wave
from fractions import Fraction
from pathlib import Path

import numpy as np
import numpy.typing as npt

ESPEAK = "espeak-ng"
PHONE_RATE = 48_000
# kind -> (container, codec, who sends it)
PHONE_FORMATS: dict[str, tuple[str, str, str]] = {
    "webm": ("webm", "libopus", "Chrome and Android"),
    "mp4": ("mp4", "aac", "Safari"),
}

Samples = npt.NDArray[np.float32]


class RecordingError(RuntimeError):
    """A recording could not be made; the message says what to install or fix."""


def espeak_available() -> bool:
    return shutil.which(ESPEAK) is not None


def speak(text: str, *, voice: str = "en", words_per_minute: int = 175) -> tuple[Samples, int]:
    """`text` spoken by espeak-ng: mono float32 samples in [-1, 1] and their rate (22,050 Hz).
    175 words a minute is espeak-ng's own default speed."""
    if not espeak_available():
        raise RecordingError(
            "espeak-ng is not installed; install it (apt-get install espeak-ng, or make browser)"
        )
    with tempfile.TemporaryDirectory(prefix="commonplace-speak-") as tmp:
        wav = Path(tmp) / "spoken.wav"
        try:
            subprocess.run(
                [ESPEAK, "-v", voice, "-s", str(words_per_minute), "-w", str(wav), "--stdin"],
                input=text, text=True, capture_output=True, timeout=300, check=True,
            )  # fmt: skip
        except subprocess.CalledProcessError as exc:
            raise RecordingError(f"espeak-ng failed: {exc.stderr.strip() or exc}") from None
        except subprocess.TimeoutExpired:
            raise RecordingError("espeak-ng did not finish within 300 s") from None
        with wave.open(str(wav), "rb") as w:
            if w.getsampwidth() != 2:
                raise RecordingError(f"espeak-ng wrote {8 * w.getsampwidth()}-bit audio, not 16")
            rate, channels = w.getframerate(), w.getnchannels()
            raw = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    samples = raw.reshape(-1, channels).mean(axis=1) / 32768.0
    return samples.astype(np.float32), rate


def encode(samples: Samples, rate: int, kind: str) -> bytes:
    """Mono samples as a phone's recording of `kind` ('webm' or 'mp4'), 48 kHz mono."""
    import av  # here, as in speech/audio.py: FFmpeg's libraries load only when used

    fmt, codec, _ = PHONE_FORMATS[kind]
    resampler = av.AudioResampler(format="fltp", layout="mono", rate=PHONE_RATE)
    buf = io.BytesIO()
    with av.open(buf, "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=PHONE_RATE)
        if not isinstance(stream, av.AudioStream):
            raise RecordingError(f"{codec} is not an audio codec in this PyAV")
        stream.layout = "mono"
        for start in range(0, samples.shape[0], 4096):
            piece = np.ascontiguousarray(samples[start : start + 4096]).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(piece, format="fltp", layout="mono")
            frame.sample_rate = rate
            frame.pts = start  # in samples: without it a long AAC recording fails to mux
            frame.time_base = Fraction(1, rate)
            for out in resampler.resample(frame):
                for packet in stream.encode(out):
                    container.mux(packet)
        for out in resampler.resample(None):
            for packet in stream.encode(out):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return buf.getvalue()
