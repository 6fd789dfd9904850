"""How each embedding model wants its text: query and document formats, and its context size.

Most retrieval models were trained with one format for the question and another for the
passage; embedding both the same way loses quality silently (nothing fails, results are just
worse). So every text the index sends goes through a profile: `query(text)` for a search,
`document(context, text)` for a chunk, where context is "Title > Heading path".

Each entry cites the model card it comes from. A model not in the table gets no prefixes and
the context Ollama embeds it within (`/api/show`: `<architecture>.context_length`, capped by
the Modelfile's num_ctx or Ollama's smallest default; see `LLM.context_length`); the choice is
logged once. `signature` changes whenever what a model is sent changes, so the index
re-reads every note once after a profile changes (chunks whose text is unchanged keep their
vectors, the rest are embedded again).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class EmbedProfile:
    model: str  # the model name as configured
    query_prefix: str = ""
    document_prefix: str = ""
    title_format: str = "{title}\n\n"  # the chunk's context line, before its text
    untitled: str = ""  # used instead of title_format when a chunk has no context line
    context_tokens: int | None = None  # None: not known (the chunk_tokens setting decides)
    # table (a known model), ollama (/api/show), default (unknown) or config (prefixes set)
    source: str = "table"

    def query(self, text: str) -> str:
        return f"{self.query_prefix}{text}"

    def document(self, context: str, text: str) -> str:
        head = self.title_format.format(title=context) if context else self.untitled
        return f"{self.document_prefix}{head}{text}"

    @property
    def overhead_chars(self) -> int:
        """Characters (other than line breaks) every document adds to its context and text."""
        return len(self.document_prefix) + len(self.title_format.format(title="").strip())

    @property
    def signature(self) -> str:
        """Changes whenever what this model is sent, or how notes are cut for it, changes."""
        parts = (
            self.model,
            self.query_prefix,
            self.document_prefix,
            self.title_format,
            self.untitled,
            str(self.context_tokens),
        )
        return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Known:
    query_prefix: str = ""
    document_prefix: str = ""
    title_format: str = "{title}\n\n"
    untitled: str = ""
    context_tokens: int | None = None


# "Represent this sentence ..." is the query instruction of BGE-style English retrievers.
_BGE_QUERY = "Represent this sentence for searching relevant passages: "

# Base model name (no tag, no namespace) -> what its card asks for. Context sizes are what
# Ollama runs the model with (its library page), which can be less than the model supports.
KNOWN: dict[str, _Known] = {
    # sentence-transformers/all-MiniLM-L6-v2: symmetric, no prefixes; inputs are cut at 256
    # word pieces (https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2).
    "all-minilm": _Known(context_tokens=256),
    # "the text prompt must include a task instruction prefix ... embed your documents as
    # search_document: <text here> and embed your user queries as search_query: <text here>"
    # (https://huggingface.co/nomic-ai/nomic-embed-text-v1.5, and the Ollama GGUF card
    # https://huggingface.co/nomic-ai/nomic-embed-text-v1.5-GGUF, "Usage").
    "nomic-embed-text": _Known("search_query: ", "search_document: ", context_tokens=2048),
    # "you have to provide the prompt `Represent this sentence for searching relevant
    # passages:` for query if you want to use it for retrieval. Besides that you don't need any
    # prompt." (https://huggingface.co/mixedbread-ai/mxbai-embed-large-v1; Ollama's page
    # https://ollama.com/library/mxbai-embed-large shows the same; num_ctx 512).
    "mxbai-embed-large": _Known(_BGE_QUERY, context_tokens=512),
    # Arctic Embed v1 (Ollama's snowflake-arctic-embed): queries get the same BGE instruction,
    # documents none (https://huggingface.co/Snowflake/snowflake-arctic-embed-m, "Usage").
    "snowflake-arctic-embed": _Known(_BGE_QUERY, context_tokens=512),
    # Arctic Embed 2.0 (Ollama's snowflake-arctic-embed2): `query_prefix = 'query: '`, documents
    # without a prefix (https://huggingface.co/Snowflake/snowflake-arctic-embed-l-v2.0, "Usage").
    "snowflake-arctic-embed2": _Known("query: ", context_tokens=8192),
    # BGE v1.5: the instruction goes on the query for short-query/long-passage retrieval; "In
    # all cases, no instruction need to be added to passages"
    # (https://huggingface.co/BAAI/bge-large-en-v1.5, "Model List" footnote).
    "bge-large": _Known(_BGE_QUERY, context_tokens=512),
    # BGE-M3: no instruction for queries or passages (https://huggingface.co/BAAI/bge-m3).
    "bge-m3": _Known(context_tokens=8192),
    # Granite Embedding: no prompts (https://huggingface.co/ibm-granite/granite-embedding-30m-english;
    # Ollama's https://ollama.com/library/granite-embedding, 512 context).
    "granite-embedding": _Known(context_tokens=512),
    # paraphrase-multilingual-MiniLM-L12-v2: symmetric, no prefixes; 128 word pieces
    # (https://huggingface.co/sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2).
    "paraphrase-multilingual": _Known(context_tokens=128),
    # EmbeddingGemma: queries "task: search result | query: {content}", documents
    # "title: {title | "none"} | text: {content}" (https://huggingface.co/google/embeddinggemma-300m,
    # "Prompt instructions"; the same prompts ship in Ollama's model, see
    # https://ollama.com/library/embeddinggemma).
    "embeddinggemma": _Known(
        "task: search result | query: ",
        title_format="title: {title} | text: ",
        untitled="title: none | text: ",
        context_tokens=2048,
    ),
    # Qwen3-Embedding: queries "Instruct: {task}\nQuery:{query}" with a one-sentence task;
    # "No need to add instruction for retrieval documents"
    # (https://huggingface.co/Qwen/Qwen3-Embedding-0.6B, "Usage"; the task below is the card's
    # web-search example).
    "qwen3-embedding": _Known(
        "Instruct: Given a web search query, retrieve relevant passages that answer the query\n"
        "Query:",
        context_tokens=8192,
    ),
}


def base_name(model: str) -> str:
    """'library/nomic-embed-text:v1.5' -> 'nomic-embed-text'."""
    return model.rsplit("/", 1)[-1].split(":", 1)[0]


def known_profile(model: str) -> EmbedProfile | None:
    """The table's profile for this model, or None if the table does not know it."""
    known = KNOWN.get(base_name(model))
    if known is None:
        return None
    return EmbedProfile(
        model=model,
        query_prefix=known.query_prefix,
        document_prefix=known.document_prefix,
        title_format=known.title_format,
        untitled=known.untitled,
        context_tokens=known.context_tokens,
        source="table",
    )


def unknown_profile(model: str, context_tokens: int | None) -> EmbedProfile:
    """No prefixes; the context size Ollama reported (None if it could not be asked)."""
    return EmbedProfile(
        model=model,
        context_tokens=context_tokens,
        source="ollama" if context_tokens else "default",
    )


def with_prefixes(profile: EmbedProfile, query: str, document: str) -> EmbedProfile:
    """The profile with the owner's prefixes (`[ollama] embed_query_prefix` and
    `embed_document_prefix`) when either is set: a model the table does not know (an E5 model,
    say, wants "query: " and "passage: ") is otherwise sent its text as is. Together they
    replace the table's prefixes: one left "" means no prefix on that side."""
    if not query and not document:
        return profile
    return replace(profile, query_prefix=query, document_prefix=document, source="config")
