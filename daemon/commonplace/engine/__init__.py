"""The built-in engine: llama.cpp's server as a supervised child process, and its models.

The daemon never loads llama.cpp itself: `python -m commonplace.engine.child` does (child.py),
started on first need and watched by process.py, so that a crash, an out-of-memory kill or a
processor without the instructions the build needs never takes the daemon down, and an idle
engine gives all of its memory back. What the computer can run is read in hardware.py, what a
model needs from its GGUF header in gguf.py, and the two are matched in sizing.py.

May import: basics, config.
"""
