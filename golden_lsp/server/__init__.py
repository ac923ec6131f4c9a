"""The language-server front end (pygls): thin wiring from LSP to the core and feature modules."""

from .app import serve

__all__ = ["serve"]
