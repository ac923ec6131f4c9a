"""The engine put in place: the corpus and the per-text answers made fast by the engine's parts.

The semantics declare what they would gain from remembering — a document's chunks between runs,
how long a read-back text is held, which answers of a text to memo — through narrow interfaces
(``corpus/hooks.py``, ``text/memo.py``) whose defaults keep nothing. Importing the engine fills
them (``engine/__init__.py`` calls ``install``), so every front end, and every worker process that
imports the cold-start map, runs warm; a test that wants the cold reference calls ``cold``.
"""

from __future__ import annotations

from ..corpus import hooks
from ..text import memo
from . import diskcache, textcache
from .held import HELD


def install() -> None:
    """Chunks kept in the warm cache, read-back texts held by ``HELD``, per-text answers memoed
    by ``textcache`` and forgotten with their text."""
    hooks.install(diskcache, HELD, textcache.forget_text)
    memo.install(textcache.remember)


def cold() -> None:
    """Nothing kept anywhere: the reference every cached run must equal."""
    hooks.cold()
    memo.install(None)
