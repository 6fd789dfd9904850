"""The daemon's aiohttp server: JSON API and the phone page.

May import: ask, assistant, attachments, basics, briefing, capture, config, index, llm, plugin,
push, runtime, speech, vault.
"""

from commonplace.server.app import create_app

__all__ = ["create_app"]
