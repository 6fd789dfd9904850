"""Dictation: decode the phone's recording, transcribe it on this computer, hint the names.

May import: config, vault.
"""

from commonplace.speech.audio import (
    SAMPLE_RATE,
    Audio,
    AudioError,
    AudioTooLong,
    decode_audio,
    duration_s,
)
from commonplace.speech.hints import name_hint, vault_names
from commonplace.speech.whisper import (
    SpeechUnavailable,
    Transcriber,
    WhisperTranscriber,
    model_path,
)

__all__ = [
    "SAMPLE_RATE",
    "Audio",
    "AudioError",
    "AudioTooLong",
    "SpeechUnavailable",
    "Transcriber",
    "WhisperTranscriber",
    "decode_audio",
    "duration_s",
    "model_path",
    "name_hint",
    "vault_names",
]
