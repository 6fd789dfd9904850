"""Which embedding model the index was built with: its name at open, its identity at a run.

Vectors of two models never mix. The store checks the name it recorded when it opens (store.py,
from `stored_model_name`); the identity beyond the name (another server, a model pulled anew, a
file named like another: llm `embed_identity`) is only known once the server is asked, so the
first run checks it (`identity_changed`) and, when it differs, every note is embedded again.
"""

from __future__ import annotations

import logging

from commonplace.index.manifest import Manifest
from commonplace.llm import LLM
from commonplace.llm.profiles import EmbedProfile

log = logging.getLogger(__name__)


def stored_model_name(llm: LLM) -> str:
    """The embedding model as the store records it (llm's `embed_store_name`)."""
    return llm.embed_store_name()


def identity_changed(manifest: Manifest, identity: str, has_notes: bool) -> bool:
    """Record `identity`; True when the index holds vectors of another model. An index that
    recorded none yet (built before identities were kept) takes this one as its own."""
    stored = manifest.get_meta("embed_identity")
    changed = stored is not None and stored != identity and has_notes
    if changed:
        log.warning(
            "the embedding model is not the one the index was built with (%s; it was %s): every "
            "note is embedded again",
            identity,
            stored,
        )
    manifest.set_meta("embed_identity", identity)
    return changed


def prefixes_said(profile: EmbedProfile) -> str:
    """What the log says of the prefixes an unknown model is sent."""
    if profile.source != "config":
        return "no query or document prefix"
    return (
        f"query prefix {profile.query_prefix!r} and document prefix "
        f"{profile.document_prefix!r} (from [model] in the config)"
    )
