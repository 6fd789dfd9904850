"""POST /api/transcribe: upload, decode, hint, transcribe (replaced at its function boundary)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest
from aiohttp import FormData

from commonplace.config import Settings
from commonplace.server.context import Services
from commonplace.speech import SAMPLE_RATE, Audio, WhisperTranscriber
from tests.server.conftest import ClientFactory, local_host
from tests.speech.audio_maker import FORMATS, peak_frequency, recording


class RecordingTranscriber:
    """Stands in for whisper.cpp: keeps what it was given, answers a fixed sentence."""

    def __init__(self, text: str = "ring maya collins about the shed roof") -> None:
        self.text = text
        self.calls: list[tuple[Audio, str]] = []

    def __call__(self, audio: Audio, prompt: str) -> str:
        self.calls.append((audio, prompt))
        return self.text


def audio_headers(client: Any, content_type: str) -> dict[str, str]:
    return {"Origin": f"http://{local_host(client)}", "Content-Type": content_type}


@pytest.mark.parametrize("kind", ["webm", "mp4"])
async def test_upload_is_decoded_and_transcribed_with_the_name_hint(
    make_client: ClientFactory, kind: str
) -> None:
    fake = RecordingTranscriber()
    client = await make_client(services=Services(transcriber=fake))
    response = await client.post(
        "/api/transcribe",
        data=recording(kind, seconds=1.5),
        headers=audio_headers(client, FORMATS[kind][2] + ";codecs=whatever"),
    )
    assert response.status == 200, await response.text()
    body = await response.json()
    assert body == {"text": fake.text, "seconds": pytest.approx(1.5, abs=0.05)}
    [(audio, prompt)] = fake.calls
    assert audio.dtype == np.float32 and audio.ndim == 1
    assert abs(peak_frequency(audio, SAMPLE_RATE) - 440) < 5
    assert prompt.startswith("Names: Maya Collins") and "Zoë Martín" in prompt


async def test_multipart_upload(make_client: ClientFactory) -> None:
    fake = RecordingTranscriber()
    client = await make_client(services=Services(transcriber=fake))
    form = FormData()
    form.add_field("audio", recording("webm", 1.0), filename="note.webm", content_type="audio/webm")
    response = await client.post(
        "/api/transcribe", data=form, headers={"Origin": f"http://{local_host(client)}"}
    )
    assert response.status == 200
    assert len(fake.calls) == 1


async def test_too_big_upload_is_413(make_client: ClientFactory, web_settings: Settings) -> None:
    small = dataclasses.replace(
        web_settings, speech=dataclasses.replace(web_settings.speech, max_upload_mb=0.1)
    )
    fake = RecordingTranscriber()
    client = await make_client(small, Services(transcriber=fake))
    response = await client.post(
        "/api/transcribe", data=b"\0" * 200_000, headers=audio_headers(client, "audio/webm")
    )
    assert response.status == 413
    assert (await response.json())["error"]["code"] == "too_large"
    assert fake.calls == []


async def test_too_long_recording_is_413(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    short = dataclasses.replace(
        web_settings, speech=dataclasses.replace(web_settings.speech, max_seconds=1)
    )
    fake = RecordingTranscriber()
    client = await make_client(short, Services(transcriber=fake))
    response = await client.post(
        "/api/transcribe", data=recording("mp4", 3.0), headers=audio_headers(client, "audio/mp4")
    )
    assert response.status == 413
    error = (await response.json())["error"]
    assert error["code"] == "too_long" and "1 s limit" in error["message"]
    assert fake.calls == []


async def test_not_audio_is_422(make_client: ClientFactory) -> None:
    client = await make_client(services=Services(transcriber=RecordingTranscriber()))
    response = await client.post(
        "/api/transcribe", data=b"hello" * 100, headers=audio_headers(client, "audio/webm")
    )
    assert response.status == 422
    assert (await response.json())["error"]["code"] == "bad_audio"


async def test_missing_model_says_what_to_download(
    make_client: ClientFactory, web_settings: Settings
) -> None:
    client = await make_client(
        services=Services(transcriber=WhisperTranscriber(web_settings.speech))
    )
    response = await client.post(
        "/api/transcribe", data=recording("webm", 0.5), headers=audio_headers(client, "audio/webm")
    )
    assert response.status == 503
    error = (await response.json())["error"]
    assert error["code"] == "speech_unavailable"
    assert "ggml-base.en.bin" in error["message"]


async def test_audio_content_type_only_for_transcribe(make_client: ClientFactory) -> None:
    client = await make_client(services=Services(transcriber=RecordingTranscriber()))
    response = await client.post(
        "/api/capture", data=json.dumps({"text": "x"}), headers=audio_headers(client, "audio/webm")
    )
    assert response.status == 403
