"""The docs site's generated pages: the reference written from the code at build time.

`reference.py` turns the config dataclasses, the click commands, the aiohttp app's routes and
the MCP server's tools into Markdown; `hooks.py` is the MkDocs hook that puts it into the pages
that ask for it (`<!-- generated: NAME -->`), so the reference cannot drift from the program.
"""
