"""A user's download of a model from Hugging Face, pinned and checked.

Pinned: a repository, a commit and a file (catalog.HubFile), never "main", so the bytes cannot
change under the same name; checked: the SHA-256 of what arrived must be the catalog's before
the file gets its name. It goes into `<name>.part`, resumes from there with an HTTP Range
request after a cut connection (and on the next run after Ctrl-C), follows Hugging Face's
redirect to its CDN, and leaves nothing half-written under the model's name.

The endpoint is `HF_ENDPOINT`, as huggingface_hub reads it (a mirror; the tests' local
server), with the same URL layout: `{endpoint}/{repo}/resolve/{revision}/{file}`.

httpx because it is already a dependency and streams with explicit timeouts;
huggingface_hub would bring its own cache layout and a second HTTP stack for one GET.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

from commonplace import __version__
from commonplace.engine.bert_gguf import BertSource, ConversionError, convert
from commonplace.engine.catalog import HubFile, Model
from commonplace.engine.files import (
    Progress,
    free_space,
    part_path,
    publish,
    sha256_file,
    size_text,
)
from commonplace.engine.store import check_file

DEFAULT_ENDPOINT = "https://huggingface.co"
TIMEOUT = httpx.Timeout(30.0, connect=15.0)  # seconds; a stalled CDN read fails, then resumes
ATTEMPTS = 4  # connections a file may take: a cut mid-file resumes where it stopped
FreeSpace = Callable[[Path], int]


class DownloadError(Exception):
    """A download failed; the message says what happened and what to do."""


def endpoint(env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    return (env.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def is_the_file_itself(model: Model) -> bool:
    """One GGUF to download, rather than sources to convert."""
    return len(model.download) == 1 and model.download[0].sha256 == model.sha256


def space_needed(model: Model) -> int:
    """Bytes a `get` writes at its peak: the download, plus the converted file when there is
    one (the sources are deleted after)."""
    return model.download_size + (0 if is_the_file_itself(model) else model.size)


def get(
    model: Model,
    folder: Path,
    *,
    base_url: str,
    progress_for: Callable[[str], Progress | None] = lambda _: None,
    free: FreeSpace = free_space,
    client: httpx.Client | None = None,
) -> Path:
    """Download `model` into `folder` (the user's models folder) and return its path."""
    if not model.download:
        raise DownloadError(f"{model.id} has no download: {model.download_note}")
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / model.file_name
    if dest.is_file():  # a copy there already: kept if it checks out, replaced if not
        if check_file(dest, model).ok:
            return dest
        dest.unlink()
    with client or httpx.Client(timeout=TIMEOUT, follow_redirects=True) as http:
        if is_the_file_itself(model):
            fetch(model.download[0], dest, base_url, http, progress_for(model.file_name), free)
            return dest
        sources = folder / f".{model.id}.sources"
        for file in model.download:
            fetch(file, sources / file.file, base_url, http, progress_for(file.file), free)
    part = part_path(dest)
    try:
        convert(
            BertSource.in_folder(sources), part, name=model.gguf_name, licence=model.licence.lower()
        )
        checked = check_file(part, model)
        if not checked.ok:
            raise DownloadError(f"the converted file is not the expected one: {checked.message}")
        publish(part, dest)
    except ConversionError as exc:
        raise DownloadError(f"{model.id} could not be converted: {exc}") from None
    finally:
        part.unlink(missing_ok=True)
    shutil.rmtree(sources, ignore_errors=True)
    return dest


def fetch(
    file: HubFile,
    dest: Path,
    base_url: str,
    http: httpx.Client,
    progress: Progress | None = None,
    free: FreeSpace = free_space,
) -> None:
    """One pinned file to `dest`, resumed from `dest.part` if one is there."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.is_file() and dest.stat().st_size == file.size:
        return  # a source kept from an interrupted conversion; checked when it was fetched
    part = part_path(dest)
    have = part.stat().st_size if part.is_file() else 0
    if have > file.size:
        part.unlink()
        have = 0
    need = file.size - have
    available = free(dest.parent)
    if available < need:
        raise DownloadError(
            f"{file.file} needs {size_text(need)} on the disk of {dest.parent}, and "
            f"{size_text(available)} is free: free some space, then run the same command again"
        )
    url = f"{base_url.rstrip('/')}/{file.path}"
    for attempt in range(1, ATTEMPTS + 1):
        try:
            have = stream_into(http, url, part, have, file.size, progress)
            break
        except httpx.TransportError as exc:
            have = part.stat().st_size if part.is_file() else 0
            if attempt == ATTEMPTS or (isinstance(exc, httpx.ConnectError) and have == 0):
                raise DownloadError(unreachable(url, exc, have, file.size)) from None
    if have != file.size:
        raise DownloadError(
            f"{url} sent {have:,} bytes, the file has {file.size:,}; run the same command "
            "again to resume"
        )
    digest = sha256_file(part)
    if digest != file.sha256:
        part.unlink(missing_ok=True)
        raise DownloadError(
            f"{file.file} from {url} has the SHA-256 {digest}, not the expected {file.sha256}: "
            "it was deleted, not installed. The server sent a different file; try again later, "
            "or check HF_ENDPOINT if you set it"
        )
    publish(part, dest)


def stream_into(
    http: httpx.Client, url: str, part: Path, have: int, size: int, progress: Progress | None
) -> int:
    """One GET from byte `have`; returns the bytes the part then holds."""
    headers = {"User-Agent": f"commonplace/{__version__}"}
    if have:
        headers["Range"] = f"bytes={have}-"
    with http.stream("GET", url, headers=headers) as response:
        if response.status_code == 416 and have == size:
            return have  # the part was already whole
        refuse(response, url)
        if have and response.status_code != 206:
            have = 0  # the server ignored the Range: start over
        with part.open("ab" if have else "wb") as out:
            for chunk in response.iter_bytes():
                if have + len(chunk) > size:
                    raise DownloadError(
                        f"{url} sent more than the {size:,} bytes of the pinned file: "
                        "not the file expected; nothing was installed"
                    )
                try:
                    out.write(chunk)
                except OSError as exc:
                    raise DownloadError(disk_problem(exc, part)) from None
                have += len(chunk)
                if progress is not None:
                    progress(have, size)
    return have


def refuse(response: httpx.Response, url: str) -> None:
    status = response.status_code
    if status in (200, 206):
        return
    if status == 404:
        raise DownloadError(
            f"{url} answered 404 Not Found: that repository, revision or file is not there "
            "(a mirror set in HF_ENDPOINT may not have it)"
        )
    if status in (401, 403):
        raise DownloadError(f"{url} answered {status}: the file needs a login Commonplace lacks")
    raise DownloadError(f"{url} answered {status}; try again later")


def unreachable(url: str, exc: Exception, have: int, size: int) -> str:
    if have:
        return (
            f"the download from {url} was cut at {size_text(have)} of {size_text(size)} "
            f"({type(exc).__name__}); run the same command again to resume from there"
        )
    return (
        f"could not reach {url} ({type(exc).__name__}): check the network connection "
        "(or HF_ENDPOINT, if you set it)"
    )


def disk_problem(exc: OSError, part: Path) -> str:
    if exc.errno == errno.ENOSPC:
        return (
            f"the disk is full while writing {part}; what arrived is kept there: free some "
            "space and run the same command again to resume"
        )
    return f"could not write {part}: {exc.strerror or exc}"
