"""The docs site's generated pages: the reference written from the code at build time.

`reference.py` turns the config dataclasses, the click commands, the aiohttp app's routes and
the MCP server's tools into Markdown; `pages.py` writes it into the pages that ask for it
(`<!-- generated: NAME -->`), where it is committed (`make reference`), and `hooks.py` is the
MkDocs hook that writes it afresh at each build; a test fails when a page is out of date.
"""
