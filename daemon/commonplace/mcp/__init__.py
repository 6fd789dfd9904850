"""The MCP server (`commonplace mcp`): other AI clients search, read and ask the vault, save new
captures, and ask the owner (never decide) about any other change. See server.py.

May import: ask, assistant, basics, capture, config, index, llm, runtime, vault.
"""
