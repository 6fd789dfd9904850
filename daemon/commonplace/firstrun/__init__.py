"""`commonplace init`: the first run. Finds the vaults the note apps know, reads the computer's
timezone, asks Ollama and Tailscale what is there, and writes a short config file."""
