"""The daemon's aiohttp server: JSON API and the phone page."""

from commonplace.server.app import create_app

__all__ = ["create_app"]
