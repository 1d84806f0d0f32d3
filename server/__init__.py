"""agent-ls: an AI coding assistant served over the Language Server Protocol."""

__version__ = "0.1.0"
