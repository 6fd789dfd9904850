"""The built-in engine: llama.cpp's server as a supervised child process, and the models it
serves.

The models' side is here: which models are known (catalog.py), where they live and what is
there (store.py), a pinned, checked download for users (download.py), the sample's models
assembled from Python packages with no network (packaged.py), and the converter that turns
all-MiniLM-L6-v2's safetensors into a GGUF llama.cpp reads (bert_gguf.py).

May import: basics, config.
"""
