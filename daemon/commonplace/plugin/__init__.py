"""The Obsidian plugin's side in the daemon: the vault's API token (apitoken.py), each paired
device's own revocable token (devices.py), pairing without copying a token (pairing.py), the
discovery file that tells a plugin on this computer where the daemon listens (discovery.py),
and `commonplace plugin install` (install.py).

May import: basics, vault.
"""
