"""The phone page's files (web/), served from a fixed list made at start-up.

Only files that exist in web/ when the app is built can be served, looked up by exact name, so
no request path (`..`, encoded slashes, symlinks) can reach any other file. The shell is sent
with `no-cache`: the service worker keeps it for offline use and revalidates it each time.

The built Obsidian plugin is served beside it, at /obsidian-plugin/main.js, manifest.json and
styles.css (resources.plugin_files): the installed program carries it, so a user with no
checkout copies those three files into the vault's .obsidian/plugins/commonplace/ from here.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from aiohttp import web

from commonplace.basics.resources import plugin_files
from commonplace.server.context import SERVICES
from commonplace.server.errors import ApiError

TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
}
_PAGE_FILES = web.AppKey("page_files", dict)
PLUGIN_PREFIX = "/obsidian-plugin/"


def page_files(root: Path) -> dict[str, Path]:
    """URL path ('/app.js', '/icons/icon-192.png') -> file, for every regular file in root."""
    files: dict[str, Path] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if (
            path.is_file()
            and not path.is_symlink()
            and not any(p.startswith(".") for p in rel.split("/"))
        ):
            files["/" + rel] = path
    files["/"] = root / "index.html"
    for name, path in plugin_files().items():
        files[PLUGIN_PREFIX + name] = path
    return files


def add_page_routes(app: web.Application, root: Path) -> None:
    app[_PAGE_FILES] = page_files(root)
    app.router.add_get("/", serve)
    app.router.add_get("/{name:(?!api/).+}", serve)


async def serve(request: web.Request) -> web.StreamResponse:
    path = request.app[_PAGE_FILES].get(request.path)
    if path is None or not path.is_file():
        raise ApiError(404, "not_found", "no such page")
    ctype = (
        TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    )
    if request.path == "/":  # the page opened: a search (or a capture to tidy) is likely soon
        services = request.app.get(SERVICES)
        index = services.index if services is not None else None
        if index is not None:
            index.stores.vectors.warm()
    headers = {"Content-Type": ctype, "Cache-Control": "no-cache"}
    if path.name == "sw.js":
        headers["Service-Worker-Allowed"] = "/"
    return web.FileResponse(path, headers=headers)
