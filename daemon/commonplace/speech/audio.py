"""Decode whatever the phone recorded into what whisper.cpp wants: 16 kHz mono float32.

Phones differ: Chrome records webm/opus, Safari mp4/aac. PyAV (FFmpeg's libraries, shipped in
its wheel) reads both without a system ffmpeg. The duration limit is enforced while decoding,
so a long or lying file stops early instead of filling memory.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import av

SAMPLE_RATE = 16_000

Audio = npt.NDArray[np.float32]


class AudioError(ValueError):
    """The upload is not audio we can use; the message says why."""


class AudioTooLong(AudioError):
    """The recording is longer than the configured limit."""


def decode_audio(data: bytes, *, max_seconds: float) -> Audio:
    """Decode `data` (any container/codec FFmpeg knows) to 16 kHz mono float32 in [-1, 1]."""
    if not data:
        raise AudioError("the recording is empty")
    import av  # here, not at start-up: FFmpeg's libraries are ~20 MB of an idle daemon

    limit = int(max_seconds * SAMPLE_RATE)
    pieces: list[Audio] = []
    total = 0
    try:
        with av.open(io.BytesIO(data), mode="r") as container:
            if not container.streams.audio:
                raise AudioError("the upload has no audio track")
            stream = container.streams.audio[0]
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    total += _append(pieces, out)
                if total > limit:
                    raise AudioTooLong(_too_long(max_seconds))
            for out in resampler.resample(None):
                total += _append(pieces, out)
    except av.FFmpegError as exc:
        raise AudioError(f"the recording could not be read as audio ({exc})") from None
    if total > limit:
        raise AudioTooLong(_too_long(max_seconds))
    if total == 0:
        raise AudioError("the recording has no sound in it")
    return np.concatenate(pieces).astype(np.float32, copy=False)


def _append(pieces: list[Audio], frame: av.AudioFrame) -> int:
    samples = frame.to_ndarray().reshape(-1).astype(np.float32, copy=False)
    pieces.append(samples)
    return int(samples.shape[0])


def _too_long(max_seconds: float) -> str:
    return f"the recording is longer than the {max_seconds:g} s limit; record a shorter piece"


def duration_s(audio: Audio) -> float:
    return float(audio.shape[0]) / SAMPLE_RATE
