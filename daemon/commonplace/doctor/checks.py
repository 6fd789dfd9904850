"""The health checks behind `commonplace doctor`: one line per check, each says what to do."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from commonplace import __version__
from commonplace.attachments.kinds import is_pdf, iter_attachment_paths
from commonplace.attachments.ocr import ocr_status
from commonplace.config import Settings, default_config_path, set_vault
from commonplace.daemon.conflicts import find_conflict_copies
from commonplace.daemon.dataformat import FORMAT, NewerDataFolder, refuse_newer
from commonplace.daemon.lease import describe_lease
from commonplace.doctor.check import Check
from commonplace.doctor.models import model_server_checks
from commonplace.runtime.attention import Entry, read_running, summary
from commonplace.runtime.daemon_notes import left_in_earlier_pages
from commonplace.runtime.lock import daemons_elsewhere, running_daemon
from commonplace.tidy.state import TidyState
from commonplace.vault import iter_note_paths
from commonplace.vault.exclusions import load_exclusions
from commonplace.vault.files import is_regular_file
from commonplace.vault.journals import DEFAULT_PAGES, journal_names
from commonplace.vault.layout import count_by_suffix
from commonplace.vault.obsidian_settings import inbox_clashes

if TYPE_CHECKING:
    from commonplace.calendar import CalendarClient


def config_checks(settings: Settings) -> list[Check]:
    where = (
        str(settings.config_path)
        if settings.config_path
        else f"no config file at {default_config_path(os.environ)}; defaults used "
        "(`commonplace init` writes one)"
    )
    checks = [Check("ok", "version", f"commonplace {__version__} (data format {FORMAT})")]
    checks.append(Check("ok", "config", where))
    vault = settings.vault
    if not vault.is_dir():
        checks.append(Check("fail", "vault", f"{vault} is not a folder; {set_vault(settings)}"))
    elif not os.access(vault, os.W_OK):
        checks.append(Check("fail", "vault", f"{vault} is not writable by this user"))
    else:
        notes = list(iter_note_paths(vault))
        checks.append(Check("ok", "vault", f"{vault} ({settings.flavor}, {len(notes)} notes)"))
        checks += flavor_checks(settings)
        checks += exclusion_checks(settings, notes)
        checks += [
            Check("warn", "obsidian", line)
            for line in inbox_clashes(vault, settings.folder("inbox"))
        ]
        checks += journal_checks(settings)
        checks += pages_directory_checks(settings)
        checks += unread_format_checks(vault)
        checks += attachment_checks(settings)
    data = settings.data_path
    # A check makes nothing: doctor used to create the data folder, one for every vault named
    # (a mistyped one too). The nearest folder that exists must let the daemon make the rest.
    existing = next((p for p in (data, *data.parents) if p.exists()), None)
    writable = existing is not None and existing.is_dir() and os.access(existing, os.W_OK)
    made = "" if data.is_dir() else " (not made yet: the daemon makes it at its first start)"
    checks.append(
        Check("ok", "data folder", f"{data}{made}")
        if writable
        else Check("fail", "data folder", f"{data} cannot be created or written; set data_dir")
    )
    checks += data_format_checks(data)
    checks.append(Check("ok", "timezone", settings.tz.key))
    return checks


def data_format_checks(data: Path) -> list[Check]:
    """Which format the data folder holds (daemon/dataformat.py): a newer one stops every other
    command, an older one is brought forward by the daemon's next start."""
    try:
        found = refuse_newer(data)
    except NewerDataFolder as exc:
        return [Check("fail", "data format", str(exc))]
    if found.format is None or found.format == FORMAT:
        return []
    return [
        Check(
            "ok",
            "data format",
            f"format {found.format}, written by an earlier commonplace; the daemon brings it "
            f"forward to format {FORMAT} as it starts, keeping your state",
        )
    ]


def flavor_checks(settings: Settings) -> list[Check]:
    """A vault that does not look like its flavour: Logseq pointed one folder too high (the
    daemon would make a pages/ of its own there) or a Logseq graph read as an Obsidian vault.
    (A graph that sets `:pages-directory` has logseq/config.edn, so pages/ is the one to look
    for when there is no logseq/ folder.)"""
    vault = settings.vault
    if settings.flavor == "logseq" and not any(
        (vault / name).is_dir() for name in ("pages", "journals", "logseq")
    ):
        return [
            Check(
                "warn",
                "vault",
                f"flavor is logseq, but {vault} holds no pages/, journals/ or logseq/ folder; "
                "set 'vault' to the graph's folder (the one holding pages/ and journals/)",
            )
        ]
    if (
        settings.flavor == "obsidian"
        and (vault / "logseq" / "config.edn").is_file()
        and not (vault / ".obsidian").is_dir()
    ):
        return [
            Check(
                "warn",
                "vault",
                f"{vault} is a Logseq graph (it holds logseq/config.edn); "
                'set flavor = "logseq" in commonplace.toml (or COMMONPLACE_FLAVOR=logseq)',
            )
        ]
    return []


# Formats that hold the owner's words and that no stage reads: said once, so a Logseq graph
# kept in Org mode, or notes written on canvases, are not silently left out of every answer.
UNREAD_FORMATS = {".org": ("Org-mode page", "Org-mode pages"), ".canvas": ("canvas", "canvases")}


def unread_format_checks(vault: Path) -> list[Check]:
    counts = count_by_suffix(vault, tuple(UNREAD_FORMATS))
    if not counts:
        return []
    found = ", ".join(f"{n} {UNREAD_FORMATS[s][n != 1]} ({s})" for s, n in sorted(counts.items()))
    return [
        Check(
            "warn",
            "other formats",
            f"{found}: Commonplace reads Markdown notes only, so their words are not searched, "
            "asked about or tidied (nothing in them is changed)",
        )
    ]


def attachment_checks(settings: Settings) -> list[Check]:
    """How many PDFs and images the vault holds, and whether OCR reads the ones without a text
    layer: without Tesseract a scanned PDF or a screenshot says nothing to a search, and only
    doctor can say so (nothing fails)."""
    cfg = settings.attachments
    found = list(iter_attachment_paths(settings.vault)) if cfg.enabled else []
    pdfs = sum(1 for p in found if is_pdf(p))
    images = len(found) - pdfs
    counted = f"{pdfs} PDF(s) and {images} image(s) in the vault"
    if not cfg.enabled:
        return [Check("ok", "attachments", "not read ([attachments] enabled = false)")]
    if not cfg.ocr:
        return [
            Check(
                "ok",
                "attachments",
                f"{counted}; PDFs are read from their text layer, OCR is off "
                "([attachments] ocr = false)",
            )
        ]
    status = ocr_status(tuple(cfg.ocr_languages) or ("eng",))
    if status.available:
        langs = "+".join(cfg.ocr_languages)
        return [Check("ok", "attachments", f"{counted}; OCR by Tesseract ({langs})")]
    return [
        Check(
            "warn",
            "attachments",
            f"{counted}; {status.problem}, so text PDFs are read but scanned pages and images "
            f"are not (OCR would make their words searchable): {status.action}",
        )
    ]


def exclusion_checks(settings: Settings, notes: list[str]) -> list[Check]:
    """What the index leaves out (vault/exclusions.py): a rule that matches nothing, or
    everything, is easier to see here than in search results that quietly lack a folder."""
    rules = load_exclusions(settings.vault, settings.index.exclude)
    checks = [Check("warn", "excluded", problem) for problem in rules.problems]
    if rules:
        left_out = sum(1 for rel in notes if rules.excludes(rel))
        by = ", ".join(rules.sources)
        checks.append(
            Check("ok", "excluded", f"{left_out} of {len(notes)} notes kept out of search by {by}")
        )
    return checks


_NAME_FORMAT_EXAMPLE = {
    "triple-lowbar": "a___b.md is the page a/b",
    "legacy": "a.b.md is the page a/b",
}


def journal_checks(settings: Settings) -> list[Check]:
    """How Logseq names the graph's journal pages (vault/journals.py), which every link the
    daemon writes to one follows; a format that cannot be read is a warning."""
    if settings.flavor != "logseq":
        return []
    names = journal_names(settings.vault)
    checks = [Check("warn", "journals", problem) for problem in names.problems]
    example = names.title(datetime.now(settings.tz).date())
    checks.append(
        Check(
            "ok",
            "journals",
            f"pages named {names.title_format!r} (today: {example!r}), files "
            f"{names.file_format!r} in {names.directory}/; new pages in {names.pages}/, "
            f"page files named by :{names.name_format} "
            f"({_NAME_FORMAT_EXAMPLE[names.name_format]})",
        )
    )
    return checks


def pages_directory_checks(settings: Settings) -> list[Check]:
    """A Logseq graph whose `:pages-directory` changed after the daemon made its folders and
    notes in pages/: where they are now, and what becomes of them (runtime/daemon_notes.py
    `left_in_earlier_pages`; the tasks and memory notes are used where they are)."""
    from commonplace.assistant.vaultfiles import earlier_pages_file, note_path

    if settings.flavor != "logseq" or settings.pages_folder() == DEFAULT_PAGES:
        return []
    pages = settings.pages_folder()
    left = left_in_earlier_pages(settings)
    checks = [Check("warn", "pages directory", left)] if left else []
    for what, name in (
        ("tasks", settings.assistant.tasks_note),
        ("memory", settings.assistant.memory_note),
    ):
        path = note_path(settings, name)
        file = PurePosixPath(path).name
        if earlier_pages_file(settings, file) == path:
            checks.append(
                Check(
                    "ok",
                    "pages directory",
                    f"the assistant's {what} note is {path}, made before :pages-directory "
                    f"became {pages!r}; it is used there, as Logseq keeps the page there (to "
                    f"move it to {pages}/, close Logseq first)",
                )
            )
        elif path == f"{pages}/{file}" and is_regular_file(settings.vault / DEFAULT_PAGES / file):
            checks.append(
                Check(
                    "warn",
                    "pages directory",
                    f"{DEFAULT_PAGES}/{file} is no longer the assistant's {what} note: it uses "
                    f"{path}, in the pages directory {pages}/ (both files are the page "
                    f"{PurePosixPath(file).stem!r} to Logseq); copy what you want to keep from "
                    f"{DEFAULT_PAGES}/{file} into {path}, then delete {DEFAULT_PAGES}/{file}",
                )
            )
    return checks


MAX_SKIPPED_LINES = 20


def skipped_checks(settings: Settings, shown: Iterable[tuple[str, str]] = ()) -> list[Check]:
    """Entries with a note's name that are never read (links, FIFOs, sockets, devices; see
    vault/files.py), found by walking the vault, unless the running daemon already shows them."""
    said = {path for _, path in shown}
    refused: list[tuple[str, str]] = []
    for _ in iter_note_paths(settings.vault, refused=lambda p, r: refused.append((p, r))):
        pass
    refused = [(p, r) for p, r in refused if p not in said]
    checks = [
        Check("warn", "skipped", f"{path} {reason}; it is never read, moved or deleted")
        for path, reason in refused[:MAX_SKIPPED_LINES]
    ]
    if len(refused) > MAX_SKIPPED_LINES:
        more = len(refused) - MAX_SKIPPED_LINES
        checks.append(Check("warn", "skipped", f"and {more} more like these"))
    return checks


def daemon_checks(running: list[Entry] | None) -> list[Check]:
    """Is the daemon running on this vault, and what does it say needs the owner's attention
    (files it skips or keeps failing on, parts it had to restart), one line each."""
    if running is None:
        return [Check("ok", "daemon", "not running on this vault (start it: commonplace run)")]
    if not running:
        return [Check("ok", "daemon", "running; nothing needs your attention")]
    checks = [Check("ok", "daemon", f"running; {len(running)} thing(s) need your attention:")]
    return checks + [entry_check(e) for e in summary(running)]


def elsewhere_checks(settings: Settings) -> list[Check]:
    """A daemon running on another vault on this computer: the one whose phone page (and
    Obsidian plugin) the owner may be looking at, or the one holding this vault's port."""
    checks = []
    for lock in daemons_elsewhere(settings.data_dir, settings.data_path):
        vault = lock.vault or "another vault"
        if lock.port and lock.port == settings.web.port:
            checks.append(
                Check(
                    "warn",
                    "other daemon",
                    f"commonplace is running on {vault} ({lock.describe()}) and holds port "
                    f"{lock.port}, which this vault's daemon needs too: stop that one (kill "
                    f"{lock.pid}, or `commonplace service uninstall` with its config), or set "
                    "[web] port to another one for this vault",
                )
            )
        else:
            port = f", its phone page on port {lock.port}" if lock.port else ""
            checks.append(
                Check(
                    "ok",
                    "other daemon",
                    f"commonplace is also running on {vault} ({lock.describe()}{port}); the "
                    "page and plugin there show that vault, not this one",
                )
            )
    return checks


def phone_checks(settings: Settings) -> list[Check]:
    """Whether the phone page can be reached from the phone (through `tailscale serve` on the
    tailnet name) or only on this computer, and why."""
    from commonplace.firstrun.tailnet import (
        TailscaleMissing,
        serve_command,
        serves_port,
        tailnet_status,
    )

    web = settings.web
    running = running_daemon(settings.data_path)
    port = running.port if running is not None and running.port else web.port
    where = f"http://127.0.0.1:{port}/" if port else "on a free port, as [web] port = 0 asks"
    local = f"only on this computer ({where})"
    if not web.ts_name or not web.owner_login:
        unset = " and ".join(k for k in ("ts_name", "owner_login") if not getattr(web, k))
        return [
            Check(
                "ok",
                "phone page",
                f"{local}: [web] {unset} not set; with Tailscale on this computer and the "
                "phone, `commonplace init --force` fills them in",
            )
        ]
    try:
        tailnet = tailnet_status()
    except TailscaleMissing as exc:
        return [Check("warn", "phone page", f"{local}: [web] ts_name is set, but {exc}")]
    if not tailnet.running:
        state = tailnet.state or "not running"
        return [Check("warn", "phone page", f"{local}: Tailscale is {state}; run: tailscale up")]
    if tailnet.dns_name.casefold() != web.ts_name.strip().rstrip(".").casefold():
        return [
            Check(
                "warn",
                "phone page",
                f"{local}: [web] ts_name = {web.ts_name!r}, but this computer is "
                f"{tailnet.dns_name!r} on the tailnet; set ts_name = {tailnet.dns_name!r}",
            )
        ]
    if not port:
        return [
            Check(
                "warn",
                "phone page",
                f"{local}: tailscale serve needs a fixed port; set [web] port (8765 is the "
                f"default), then run: {serve_command(8765)}",
            )
        ]
    serving = serves_port(port)
    if serving is False:
        return [
            Check(
                "warn",
                "phone page",
                f"{local}: tailscale serve does not pass https://{tailnet.dns_name}/ on to port "
                f"{port}; run: {serve_command(port)}",
            )
        ]
    unsure = "" if serving else " (tailscale serve could not be asked whether it proxies it)"
    return [
        Check(
            "ok",
            "phone page",
            f"reachable from your phone at https://{tailnet.dns_name}/ (tailscale serve to port "
            f"{port}; only {web.owner_login} is let in){unsure}",
        )
    ]


def log_checks(settings: Settings) -> list[Check]:
    from commonplace.runtime.logfile import log_path

    path = log_path(settings)
    made = "" if path.exists() else " (not written yet: the daemon writes it when it runs)"
    return [Check("ok", "log", f"{path}{made}; show it with: commonplace logs")]


def entry_check(entry: Entry) -> Check:
    return Check("warn" if entry.level == "warn" else "ok", entry.source, entry.line())


def inbox_checks(settings: Settings, shown: Iterable[tuple[str, str]] = ()) -> list[Check]:
    """Captures waiting, and those the model kept failing on (marked in the data folder) unless
    the running daemon already said so (`shown`: (source, path) of its entries)."""
    waiting = sum(1 for _ in iter_note_paths(settings.vault, under=settings.folder("inbox")))
    checks = [Check("ok", "inbox", f"{waiting} capture(s) waiting to be tidied")]
    shown = set(shown)
    for mark in TidyState(settings.data_path).marks():
        if mark.failing and ("tidy", mark.path) not in shown:
            checks.append(
                Check(
                    "warn",
                    "tidy",
                    f"{mark.path} was not filed after {mark.attempts} tries ({mark.reason}); "
                    f"edit it, or run: commonplace tidy '{mark.path}'",
                )
            )
    return checks


def lease_checks(settings: Settings) -> list[Check]:
    """Which computer's daemon tidies and answers (the vault lease, see daemon/lease.py)."""
    warn, line = describe_lease(settings.vault, settings.data_path, settings.lease, time.time())
    return [Check("warn" if warn else "ok", "lease", line)]


async def run_checks(settings: Settings) -> list[Check]:
    checks = config_checks(settings) + await model_server_checks(settings)
    if not settings.vault.is_dir():
        return checks
    running = read_running(settings.data_path)
    shown = [e.key for e in running or ()]
    copies = [entry_check(e) for e in find_conflict_copies(settings) if e.key not in shown]
    found = inbox_checks(settings, shown) + copies + skipped_checks(settings, shown)
    checks += lease_checks(settings) + found + daemon_checks(running)
    checks += elsewhere_checks(settings) + phone_checks(settings) + log_checks(settings)
    return checks + await calendar_checks(settings) + await weather_checks(settings)


async def calendar_checks(settings: Settings) -> list[Check]:
    """Reachable, the login works, the calendars are listed, today's events can be read (as
    the assistant reads them), the write calendar exists.

    All of it within one `[calendar] timeout_s`, as one call of the assistant's is: a calendar
    that hangs costs the owner one wait, not one per request, and then a sentence. The client
    is closed before doctor goes on (its connection, the keep-alive thread, a request that
    was given up on), so nothing of the calendar outlives its check."""
    from commonplace.calendar import CalendarClient  # caldav: import when used

    config = settings.calendar
    if not config.configured:
        return [Check("ok", "calendar", "not set up (optional: see the docs' calendar how-to)")]
    client = CalendarClient(settings, in_doctor=True)
    try:
        with client.all_within(config.timeout_s):
            return await _calendar_checks(client, settings)
    finally:
        await client.aclose()


async def _calendar_checks(client: CalendarClient, settings: Settings) -> list[Check]:
    from commonplace.calendar import CalendarError

    config = settings.calendar
    try:
        names = await client.all_calendar_names()
    except CalendarError as exc:
        return [Check("fail", "calendar", str(exc))]
    if not names:
        return [
            Check(
                "fail",
                "calendar",
                f"{config.url}: logged in, but the account has no "
                "calendars; make one in your calendar app, or check the url",
            )
        ]
    known = {n.casefold(): n for n in names}
    listed = ", ".join(names)
    checks = [Check("ok", "calendar", f"{config.url} ({len(names)} calendar(s): {listed})")]
    read = [
        n for n in names if not config.read or n.casefold() in {r.casefold() for r in config.read}
    ]
    checks += await events_checks(client, settings, read)
    missing = [n for n in config.read if n.casefold() not in known]
    if missing:
        checks.append(
            Check(
                "warn",
                "calendar",
                f"[calendar] read names {missing[0]!r}, which "
                f"this account does not have; use names from: {listed}",
            )
        )
    if config.write and config.write.casefold() not in known:
        checks.append(
            Check(
                "fail",
                "calendar",
                f"[calendar] write = {config.write!r} does not "
                f"exist; new events need one of: {listed}",
            )
        )
    elif config.write and config.write.casefold() not in {n.casefold() for n in read}:
        checks.append(
            Check(
                "warn",
                "calendar",
                f"[calendar] write = {config.write!r} is not a calendar read: the assistant "
                "adds events there but cannot see them (to move them, or to check that one is "
                "not added twice); add it to [calendar] read",
            )
        )
    elif not config.write and read:
        checks.append(
            Check(
                "ok",
                "calendar",
                f"new events go to {read[0]!r} (the first "
                "calendar read; set [calendar] write to choose)",
            )
        )
    return checks


async def events_checks(client: CalendarClient, settings: Settings, read: list[str]) -> list[Check]:
    """Today's events, read as the assistant reads them (the same client, calendars and
    timeout). Listing the calendars is not enough: a sign-in page or a proxy can answer the
    request for events (a REPORT) in the server's place, a server can refuse it, and the
    owner would learn of it only from the assistant or the morning briefing. Only how many
    calendars were read is shown, never an event (doctor's output ends up in bug reports).
    Reads only: a REPORT (and the PROPFINDs that find the calendars), never a write."""
    from commonplace.calendar import CalendarError, unreadable_note

    today = datetime.now(settings.tz).date()
    try:
        found = await client.events_on(today)
    except CalendarError as exc:
        return [Check("fail", "calendar events", str(exc))]
    checks = [
        Check(
            "ok",
            "calendar events",
            f"today's events can be read from {len(read)} calendar(s) ({', '.join(read)})",
        )
    ]
    if found.unreadable:
        checks.append(Check("warn", "calendar events", unreadable_note(found.unreadable)))
    return checks


async def weather_checks(settings: Settings) -> list[Check]:
    from commonplace.weather import WeatherUnavailable, conditions, get_forecast

    if not settings.weather.configured:
        return [Check("ok", "weather", "not set up (optional: [weather] latitude and longitude)")]
    now = datetime.now(settings.tz)
    try:
        today = (await get_forecast(settings, now=now)).on(now.date())
    except WeatherUnavailable as exc:
        return [
            Check(
                "fail",
                "weather",
                f"forecast unavailable: {exc}; check [weather] and that this computer is online",
            )
        ]
    place = settings.weather.place or "the configured place"
    shown = conditions(today) if today else "no figures for today"
    return [Check("ok", "weather", f"{place} today: {shown} (Open-Meteo)")]
