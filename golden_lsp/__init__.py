"""golden-lsp: quote-anchored RAG golden sets, checked in the editor and in CI.

The package splits into a pure core (``canon``, ``chunker``, ``questions``, ``resolve``,
``scoring``, ``analysis``, ``artifact``, ``config``, ``diagnostics``), which never imports the
protocol layer, and two thin front ends over it: ``cli`` and ``server``.
"""

__version__ = "0.1.0"
