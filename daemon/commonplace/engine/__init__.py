"""The built-in engine: llama.cpp's server as a supervised child process, and its models.

The daemon never loads llama.cpp itself: `python -m commonplace.engine.child` does (child.py),
started on first need and watched by process.py, so that a crash, an out-of-memory kill or a
processor without the instructions the build needs never takes the daemon down, and an idle
engine gives all of its memory back. What the computer can run is read in hardware.py, what a
model needs from its GGUF header in gguf.py, and the two are matched in sizing.py.

The models' side: which models are known (catalog.py), where they live and what is there
(store.py), a pinned, checked download for users (download.py), the sample's models assembled
from Python packages with no network (packaged.py), and the converter that turns
all-MiniLM-L6-v2's safetensors into a GGUF llama.cpp reads (bert_gguf.py).

May import: basics, config.
"""
