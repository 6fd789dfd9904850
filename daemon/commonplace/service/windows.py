"""Windows: not supported yet; the manual way is one Task Scheduler task at logon."""

from __future__ import annotations

import subprocess

from commonplace.service.program import ServiceCommand


def manual_way(command: ServiceCommand) -> str:
    line = subprocess.list2cmdline(list(command.argv)).replace('"', '\\"')  # inside /TR "..."
    return (
        "`commonplace service` does not support Windows yet. To start it at every logon by "
        "hand, run this in a Command Prompt (stop it in Task Manager; remove it with "
        "schtasks /Delete /TN Commonplace):\n"
        f'  schtasks /Create /SC ONLOGON /TN Commonplace /TR "{line}"'
    )
