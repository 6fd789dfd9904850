"""Commonplace: a private, local AI companion for a Markdown vault."""

__version__ = "0.1.0"
