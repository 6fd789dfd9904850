"""The `commonplace` command line: one module per command group.

May import: every other package (the command line is the top).
"""
