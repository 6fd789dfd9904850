"""What the daemon's long-running parts share: the `Change` a stage receives (changes.py), which
notes are the daemon's own (daemon_notes.py), the list of what needs the owner's attention
(attention.py), loops that cannot die silently (supervise.py), requests before background work
(foreground.py), jobs at wall-clock times (scheduler.py), the daemon's state files and its
one-per-vault lock, its log file, and the C heap under it. The stages and the outside services
lean on these; what runs them all is daemon/.

May import: basics, config, vault.
"""
