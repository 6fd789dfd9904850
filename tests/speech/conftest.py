"""The server fixtures, for the /api/transcribe tests."""

from tests.server.conftest import make_client, web_settings

__all__ = ["make_client", "web_settings"]
