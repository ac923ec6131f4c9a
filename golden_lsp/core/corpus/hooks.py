"""What the corpus asks of whatever makes it fast, and a cold corpus's answers: nothing kept.

A document's canonical text and chunks are what they are whether or not anything was remembered.
Three things make the corpus fast: chunks kept on disk between runs (the warm cache), texts let
go and read back while recently used (the held set), and answers computed from a text that must
be forgotten with it (the text memos). All three live in the engine (``core/engine``), which the
semantics never import: the corpus reaches them only through the three narrow interfaces here,
which the engine fills when it is imported (``engine/wiring.py``). Until then — and whenever a test
puts them back (``cold``) — every answer is the cold one: no chunk kept, no text let go, nothing
to forget. A cold run is the reference the cached runs are tested against.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..text.chunker import Chunk


class Releasable(Protocol):
    """A document holding a text it can let go of (``CorpusDoc``)."""

    @property
    def chars(self) -> int: ...

    @property
    def raw(self) -> str: ...

    @property
    def text(self) -> str: ...

    def release(self) -> None: ...


class ChunkStore(Protocol):
    """Where a document's chunks are kept between runs, by its content."""

    def load_chunks(self, doc_id: str, doc_sha: str, chars: int, max_chars: int) -> list[Chunk] | None:
        """The chunks kept for this text (its sha256 and length) at ``max_chars``, when sound."""

    def store_chunks(self, doc_id: str, doc_sha: str, max_chars: int, chunks: list[Chunk]) -> None:
        """Keep ``chunks`` for this text at ``max_chars``."""


class TextHolder(Protocol):
    """Who decides how long a text read back from disk is held (``CorpusDoc.release`` lets go)."""

    def hold(self, doc: Releasable) -> None:
        """``doc`` holds its text now (read, or read back)."""

    def touch(self, doc: Releasable) -> None:
        """``doc``'s text was used."""

    def discard(self, doc: Releasable) -> None:
        """``doc`` let go of its text."""


class _Cold:
    """Nothing kept, nothing let go."""

    def load_chunks(self, doc_id: str, doc_sha: str, chars: int, max_chars: int) -> list[Chunk] | None:
        return None

    def store_chunks(self, doc_id: str, doc_sha: str, max_chars: int, chunks: list[Chunk]) -> None:
        pass

    def hold(self, doc: Releasable) -> None:
        pass

    def touch(self, doc: Releasable) -> None:
        pass

    def discard(self, doc: Releasable) -> None:
        pass


def _forget_nothing(text: str) -> None:
    pass


#: where chunks are kept between runs
STORE: ChunkStore = _Cold()
#: how long a read-back text is held
HOLDER: TextHolder = _Cold()
#: called with a text the corpus let go of (released, or replaced by an edit): whatever was
#: computed from it is of no more use
FORGET: Callable[[str], None] = _forget_nothing


def install(store: ChunkStore, holder: TextHolder, forget: Callable[[str], None]) -> None:
    """Make the corpus fast with these (the engine's, ``engine/wiring.py``)."""
    global STORE, HOLDER, FORGET
    STORE, HOLDER, FORGET = store, holder, forget


def cold() -> None:
    """Put the cold answers back: nothing kept, nothing let go (a test of the reference)."""
    install(_Cold(), _Cold(), _forget_nothing)
