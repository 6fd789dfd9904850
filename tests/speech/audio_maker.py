"""Recordings made by the tests, in the containers phones send: webm/opus (Chrome, Android)
and mp4/aac (Safari, iPhone). A pure tone makes the resampling checkable: its frequency must
survive the trip from 48 kHz stereo to 16 kHz mono."""

from __future__ import annotations

import io

import av
import numpy as np
import numpy.typing as npt

FORMATS = {"webm": ("webm", "libopus", "audio/webm"), "mp4": ("mp4", "aac", "audio/mp4")}


def tone(seconds: float, rate: int, freq: float = 440.0) -> npt.NDArray[np.float32]:
    t = np.arange(int(seconds * rate)) / rate
    return (0.4 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def encode(samples: npt.NDArray[np.float32], rate: int, kind: str, *, stereo: bool = True) -> bytes:
    """Encode mono float samples as `kind` ('webm' or 'mp4'), optionally duplicated to stereo."""
    fmt, codec, _ = FORMATS[kind]
    layout = "stereo" if stereo else "mono"
    planes = np.tile(samples, (2, 1)) if stereo else samples.reshape(1, -1)
    buf = io.BytesIO()
    with av.open(buf, "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=rate)
        stream.layout = layout
        for start in range(0, planes.shape[1], 1024):
            frame = av.AudioFrame.from_ndarray(
                np.ascontiguousarray(planes[:, start : start + 1024]), format="fltp", layout=layout
            )
            frame.sample_rate = rate
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return buf.getvalue()


def recording(kind: str, seconds: float = 2.0, rate: int = 48_000, freq: float = 440.0) -> bytes:
    return encode(tone(seconds, rate, freq), rate, kind)


def peak_frequency(samples: npt.NDArray[np.float32], rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[int(np.argmax(spectrum))])
