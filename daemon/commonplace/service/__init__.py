"""`commonplace service`: start the daemon at login and keep it running, with the platform's
own service manager (a systemd user unit on Linux, a launchd agent on macOS), so captures are
filed and the digest and briefing happen without a terminal left open.

Every call to a service manager goes through `tools.call`, so tests put fake `systemctl`,
`loginctl` and `launchctl` executables on PATH and read back what was asked of them.

May import: briefing, config, digest, llm, runtime, vault.
"""
