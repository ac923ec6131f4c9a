"""The error a command stops on with a one-line reason, whatever part of the core raised it.

A configuration that cannot be used, a corpus folder that is missing, a document that changed
behind golden-lsp's back: the command line exits 2 with the reason, the language server shows it
to the author. Every part of the core may need to raise it, so it sits at the bottom, below the
config that raises it most.
"""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration problem: the CLI exits 2 with this one-line reason."""
