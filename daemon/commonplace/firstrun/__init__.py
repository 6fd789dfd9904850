"""`commonplace init`: the first run. Finds the vaults the note apps know, reads the computer's
timezone, asks the model server and Tailscale what is there, and writes a short config file.

Also the sample vault that `make run` starts on (sample.py), and what Tailscale says about
this computer (tailnet.py), which doctor asks too.

May import: basics, config, service, vault.
"""
