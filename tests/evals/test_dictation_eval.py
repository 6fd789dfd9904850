"""`commonplace eval dictation`: real espeak-ng speech, real webm/opus and mp4/aac, the daemon's
decoder and hint; whisper replaced at its function boundary (a real model: test_real_model.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from commonplace.cli.main import cli
from commonplace.config import Settings
from commonplace.evals.dictation import DictationOptions, run_dictation
from commonplace.evals.recordings import encode
from commonplace.evals.suite import EvalError
from commonplace.speech import decode_audio, duration_s

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (make browser)"
)


class FakeWhisper:
    """Writes down what reached whisper; 'hears' the hint's names only when given the hint."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, str]] = []

    def __call__(self, audio: np.ndarray, prompt: str) -> str:
        assert audio.dtype == np.float32 and audio.ndim == 1
        self.calls.append((audio.shape[0], prompt))
        return prompt.removeprefix("Names: ") if prompt else "something else entirely"


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@needs_espeak
def test_each_capture_is_spoken_sent_in_both_formats_and_transcribed_with_and_without_the_hint(
    tmp_path: Path,
) -> None:
    whisper = FakeWhisper()
    model = tmp_path / "ggml-test.bin"
    model.write_bytes(b"a model file")
    options = DictationOptions(model=model, limit=3, out=tmp_path / "runs", keep_audio=True)
    lines: list[str] = []
    report = run_dictation(options, Settings(), lines.append, transcriber=whisper)

    # The warm-up, then 3 captures x 2 formats x (hint, no hint).
    assert len(whisper.calls) == 1 + 12
    hints = {prompt for _, prompt in whisper.calls[1:]}
    assert len(hints) == 2 and "" in hints
    (hint,) = hints - {""}
    assert hint.startswith("Names: Maya Collins, ") and "Rook" in hint
    assert "Jewson" not in hint  # the captures are not in the hint's vault

    folder = report.folder
    assert folder.parent == tmp_path / "runs" and folder.name.endswith("ggml-test-dictation")
    items = [r for r in records(folder / "run-1.jsonl") if r["type"] == "item"]
    assert len(items) == 12
    assert {(r["format"], r["condition"]) for r in items} == {
        (k, c) for k in ("webm", "mp4") for c in ("with_hint", "without_hint")
    }
    first = next(r for r in items if r["item"] == "2026-10-19 0742" and r["format"] == "mp4")
    assert first["names"] == ["Sam", "Rook", "Gable"]
    # The decoded recording is as long as what was said (the phone formats round-trip).
    spoken = json.loads((folder / "summary.json").read_text())["recordings"]
    assert first["audio_seconds"] == pytest.approx(
        spoken["2026-10-19 0742.mp4"]["spoken_seconds"], abs=0.15
    )

    figures = report.figures[0]
    # 0742 says Sam, Rook, Gable; 1315 no names; 2104 Mum: 4 names per format.
    assert figures["with_hint"]["names"] == figures["with_hint"]["names_right"] == 8
    assert figures["without_hint"]["names"] == 8 and figures["without_hint"]["names_right"] == 0
    assert figures["with_hint"]["by_format"]["webm"]["names_right"] == 4
    assert figures["without_hint"]["wer"] > 0 and figures["with_hint"]["seconds_per_capture"] >= 0

    summary = json.loads((folder / "summary.json").read_text())
    assert summary["hint"] == hint and summary["runs_done"] == 1
    assert len(summary["load_average"]) == len(summary["load_average_after"]) == 3
    assert summary["settings"]["speech"]["whisper_model"] == str(model)
    assert {"run-1.jsonl", "transcripts-run-1.md", "audio"} <= set(summary["files"])
    assert (folder / "audio" / "2026-10-19 0742.webm").read_bytes()[:4] == b"\x1a\x45\xdf\xa3"
    side_by_side = (folder / "transcripts-run-1.md").read_text()
    assert (
        "> sam texted - chess is moving" in side_by_side
        and "missed Sam, Rook, Gable" in side_by_side
    )
    assert any("names right" in line for line in lines)


def test_without_a_model_it_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COMMONPLACE_WHISPER_MODEL", raising=False)
    config = tmp_path / "commonplace.toml"
    config.write_text("")
    env = {"COMMONPLACE_CONFIG": str(config), "HOME": str(tmp_path)}
    result = CliRunner().invoke(cli, ["eval", "dictation"], env=env)
    assert result.exit_code != 0
    assert "ct2_to_ggml.py" in result.output and "[measure]" in result.output
    missing = tmp_path / "nothing.bin"
    result = CliRunner().invoke(cli, ["eval", "dictation", "--model", str(missing)], env=env)
    assert result.exit_code != 0 and "does not exist" in result.output
    assert not (tmp_path / "eval_suite").exists()


def test_a_format_phones_do_not_send_is_refused(tmp_path: Path) -> None:
    options = DictationOptions(model=tmp_path / "m.bin", formats=("ogg",), out=tmp_path)
    with pytest.raises(EvalError, match="formats are webm, mp4"):
        run_dictation(options, Settings(), transcriber=FakeWhisper())


@pytest.mark.parametrize("kind", ["webm", "mp4"])
def test_a_long_recording_round_trips_in_both_phone_formats(kind: str) -> None:
    """The fixture's newsletter is 73 s spoken; AAC in mp4 failed to mux it without timestamps."""
    rate = 22_050
    t = np.arange(73 * rate) / rate
    samples = (0.3 * np.sin(2 * np.pi * 300 * t)).astype(np.float32)
    audio = decode_audio(encode(samples, rate, kind), max_seconds=300)
    assert duration_s(audio) == pytest.approx(73.0, abs=0.1)
