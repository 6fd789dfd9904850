"""What runs the daemon, `commonplace run` (run.py): it takes the vault's lock and lease
(lease.py), brings the data folder's format forward (dataformat.py), starts the watcher
(watcher.py) and the periodic scans (scans.py), whose changes reach the stages through the job
queue (jobs.py), serves the web server, and clears what a crash or a sync tool leaves
(leftovers.py, conflicts.py, datafolder.py, vault_access.py). The only package that knows every
stage; only the command line and doctor import it.

May import: ask, assistant, attachments, briefing, calendar, config, digest, firstrun, index,
llm, plugin, runtime, server, speech, tidy, vault.
"""
