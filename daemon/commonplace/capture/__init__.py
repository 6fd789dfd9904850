"""Capture, the first stage: a new capture written into the inbox, and read back by tidy and the
digest (inbox.py); a shared link's page clipped below the owner's words (clipping.py), fetched
by a guard that never reaches the owner's network (pagefetch.py); files shared from a phone
saved byte for byte as attachments (shared_files.py).

May import: attachments, basics, config, vault.
"""
