"""Attachments: the PDFs and images of the vault, read (text layer, OCR) and cached;
index/ makes their pages into rows of both indexes (index/attachment_chunks.py).

Nothing here imports pypdfium2, Pillow or pytesseract: they load only in the extraction child
(child.py), a separate process with a time and memory limit, so that a hostile or broken file
can neither crash nor stall the daemon, and the daemon never holds those libraries.

May import: config, runtime, vault.
"""
