"""`commonplace service install | uninstall | status | logs`: keep the daemon running."""

from __future__ import annotations

import click

from commonplace.cli.common import settings_from
from commonplace.cli.logs import show_logs
from commonplace.runtime.lock import running_daemon
from commonplace.service import launchd, systemd, tools, windows
from commonplace.service.program import ServiceCommand, ServiceError, python_running
from commonplace.service.program import service_command as make_command
from commonplace.service.summary import daemon_summary


@click.group("service")
def service_group() -> None:
    """Start the daemon at login and keep it running (systemd on Linux, launchd on macOS)."""


def _command(ctx: click.Context) -> ServiceCommand:
    extra = ("--quiet-stderr",) if tools.platform() == "darwin" else ()
    try:
        return make_command(settings_from(ctx), extra=extra)
    except ServiceError as exc:
        raise click.ClickException(str(exc)) from None


def _unsupported(command: ServiceCommand) -> click.ClickException:
    if tools.platform() == "win32":
        return click.ClickException(windows.manual_way(command))
    return click.ClickException(
        f"`commonplace service` knows systemd (Linux) and launchd (macOS), not {tools.platform()}"
        f"; start it at login by hand with: {' '.join(command.argv)}"
    )


@service_group.command()
@click.option("--dry-run", is_flag=True, help="Print the file it would write, and do nothing.")
@click.option("--force", is_flag=True, help="Replace a service file not written by commonplace.")
@click.pass_context
def install(ctx: click.Context, dry_run: bool, force: bool) -> None:
    """Install the service, start it now and at every login."""
    command = _command(ctx)
    settings = settings_from(ctx)
    where = tools.platform()
    if dry_run:
        if where == "darwin":
            click.echo(f"# would write {launchd.plist_path()}", err=True)
            click.echo(launchd.plist_text(command), nl=False)
        elif where.startswith("linux"):
            click.echo(f"# would write {systemd.unit_path()}", err=True)
            click.echo(systemd.unit_text(command), nl=False)
        else:
            raise _unsupported(command)
        return
    running = running_daemon(settings.data_path)
    try:
        if where == "darwin":
            ok = launchd.install(
                command, force=force, program=python_running(command), say=click.echo
            )
        elif where.startswith("linux"):
            pid = running.pid if running is not None else None
            ok = systemd.install(command, force=force, running_pid=pid, say=click.echo)
        else:
            raise _unsupported(command)
    except ServiceError as exc:
        raise click.ClickException(str(exc)) from None
    if not ok:
        ctx.exit(1)
    click.echo(f"Phone page: http://{settings.web.host}:{settings.web.port}/ (on this computer)")
    click.echo("Check it with: commonplace service status   (its log: commonplace service logs)")


@service_group.command()
@click.option("--force", is_flag=True, help="Also remove a service file not written by it.")
def uninstall(force: bool) -> None:
    """Stop the service and remove what `install` wrote (the log and the data stay)."""
    where = tools.platform()
    try:
        if where == "darwin":
            launchd.uninstall(force=force, say=click.echo)
        elif where.startswith("linux"):
            systemd.uninstall(force=force, say=click.echo)
        else:
            raise click.ClickException("no service is installed by commonplace on this system")
    except ServiceError as exc:
        raise click.ClickException(str(exc)) from None


@service_group.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """What the service manager says, and the daemon's own summary."""
    where = tools.platform()
    if where == "darwin":
        _, lines = launchd.status()
    elif where.startswith("linux"):
        _, lines = systemd.status()
    else:
        lines = ["service: not supported on this system yet (see `commonplace service install`)"]
    for line in [*lines, *daemon_summary(settings_from(ctx))]:
        click.echo(line)


@service_group.command()
@click.option("-f", "--follow", "follow_on", is_flag=True, help="Keep showing new lines.")
@click.option(
    "-n", "--lines", default=50, show_default=True, type=click.IntRange(0), help="Lines shown."
)
@click.pass_context
def logs(ctx: click.Context, follow_on: bool, lines: int) -> None:
    """The daemon's log (the same as `commonplace logs`)."""
    show_logs(settings_from(ctx), follow_on=follow_on, lines=lines)
