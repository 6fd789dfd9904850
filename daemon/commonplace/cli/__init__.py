"""The `commonplace` command line: one module per command group."""
